"""``paddle.fluid.dygraph.dygraph_to_static.break_continue_transformer``: dygraph-to-static conversion
(break_continue_transformer). pe runs static graphs: each name of dygraph mode says so in one line."""

from ...unsupported import DYGRAPH, refuse

refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.break_continue_transformer",
    ["BreakContinueTransformer"],
    DYGRAPH,
)
