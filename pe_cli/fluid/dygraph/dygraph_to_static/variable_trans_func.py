"""``paddle.fluid.dygraph.dygraph_to_static.variable_trans_func``: dygraph-to-static conversion
(variable_trans_func). pe runs static graphs: each name of dygraph mode says so in one line."""

from ...unsupported import DYGRAPH, refuse

refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.variable_trans_func",
    ["create_static_variable_gast_node", "data_layer_not_check", "to_static_variable_gast_node"],
    DYGRAPH,
)
