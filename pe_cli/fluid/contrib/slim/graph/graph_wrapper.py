"""``paddle.fluid.contrib.slim.graph.graph_wrapper``: GraphWrapper, a program with named inputs and
outputs (pe's, the one its Compressor uses: slim/core/graph_wrapper.py); Fluid's OpWrapper and
VarWrapper (the op and variable views its pruning and search walk) are not in pe and say so."""
from ..core.graph_wrapper import GraphWrapper  # noqa: F401
from ....unsupported import SLIM, refuse

__all__ = ["GraphWrapper", "VarWrapper", "OpWrapper"]
refuse(globals(), "paddle.fluid.contrib.slim.graph.graph_wrapper", ["VarWrapper", "OpWrapper"], SLIM)
