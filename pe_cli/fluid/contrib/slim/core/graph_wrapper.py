"""The Compressor's view of a program: its named inputs and outputs (Fluid's slim GraphWrapper,
reduced to what pe's strategies use)."""
from collections import OrderedDict

from ....data_feeder import DataFeeder

__all__ = ["GraphWrapper"]


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
