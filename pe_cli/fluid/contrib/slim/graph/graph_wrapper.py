"""``paddle.fluid.contrib.slim.graph.graph_wrapper``: the Compressor's view of a program, its named
inputs and outputs (Fluid's slim GraphWrapper, reduced to what pe's strategies use); Fluid's OpWrapper
and VarWrapper (the op and variable views its pruning and search walk) are not in pe and say so."""
from collections import OrderedDict

from ....data_feeder import DataFeeder
from ....unsupported import SLIM, refuse

__all__ = ["GraphWrapper", "VarWrapper", "OpWrapper"]


class GraphWrapper:
    """A program with named inputs (``in_nodes``: name -> variable name) and outputs (``out_nodes``)."""

    def __init__(self, program=None, in_nodes=None, out_nodes=None):
        self.program = program
        self.in_nodes = OrderedDict(in_nodes or [])
        self.out_nodes = OrderedDict(out_nodes or [])

    def feeder(self, place):
        block = self.program.global_block()
        return DataFeeder([block.var(n) for n in self.in_nodes.values()], place, program=self.program)

    def fetch_vars(self):
        return list(self.out_nodes.values())


refuse(globals(), "paddle.fluid.contrib.slim.graph.graph_wrapper", ["VarWrapper", "OpWrapper"], SLIM)
