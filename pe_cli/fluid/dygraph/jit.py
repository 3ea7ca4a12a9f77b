"""``paddle.fluid.dygraph.jit``: TracedLayer, declarative, dygraph_to_static_func: dygraph-to-static conversion
by tracing and by source. pe runs static graphs: each name of dygraph mode says so in one line."""

from ..unsupported import DYGRAPH, refuse

refuse(globals(), "paddle.fluid.dygraph.jit", ["TracedLayer", "declarative", "dygraph_to_static_func"], DYGRAPH)
