"""``paddle.fluid.dygraph.backward_strategy``: BackwardStrategy, how a dygraph backward pass sums gradients. pe
runs static graphs: each name of dygraph mode says so in one line."""

from ..unsupported import DYGRAPH, refuse

refuse(globals(), "paddle.fluid.dygraph.backward_strategy", ["BackwardStrategy"], DYGRAPH)
