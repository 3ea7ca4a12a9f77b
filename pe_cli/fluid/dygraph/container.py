"""``paddle.fluid.dygraph.container``: LayerList, ParameterList, Sequential: dygraph Layer containers. pe runs
static graphs: each name of dygraph mode says so in one line."""

from ..unsupported import DYGRAPH, refuse

refuse(globals(), "paddle.fluid.dygraph.container", ["LayerList", "ParameterList", "Sequential"], DYGRAPH)
