"""``paddle.fluid.contrib.slim.graph.executor``: SlimGraphExecutor, which runs a GraphWrapper with a
feed of its named inputs (not in pe: one line; pe's Compressor runs its programs with an Executor)."""
from .graph_wrapper import GraphWrapper  # noqa: F401
from ....unsupported import SLIM, refuse

__all__ = ["SlimGraphExecutor"]
refuse(globals(), "paddle.fluid.contrib.slim.graph.executor", __all__, SLIM)
