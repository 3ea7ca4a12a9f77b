"""``paddle.fluid.contrib.slim.graph``: slim's view of a program (graph_wrapper.py: GraphWrapper,
VarWrapper, OpWrapper) and its executor (executor.py: SlimGraphExecutor)."""

from . import executor, graph_wrapper  # noqa: F401
from .executor import SlimGraphExecutor  # noqa: F401
from .graph_wrapper import GraphWrapper, OpWrapper, VarWrapper  # noqa: F401

__all__ = ["SlimGraphExecutor", "GraphWrapper", "VarWrapper", "OpWrapper"]
