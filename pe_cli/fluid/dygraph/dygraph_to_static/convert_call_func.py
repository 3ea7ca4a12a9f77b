"""``paddle.fluid.dygraph.dygraph_to_static.convert_call_func``: dygraph-to-static conversion
(convert_call_func). pe runs static graphs: each name of dygraph mode says so in one line."""

from ...unsupported import DYGRAPH, refuse

refuse(globals(), "paddle.fluid.dygraph.dygraph_to_static.convert_call_func", ["convert_call"], DYGRAPH)
