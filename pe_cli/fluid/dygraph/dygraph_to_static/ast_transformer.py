"""``paddle.fluid.dygraph.dygraph_to_static.ast_transformer``: dygraph-to-static conversion (ast_transformer).
pe runs static graphs: each name of dygraph mode says so in one line."""

from ...unsupported import DYGRAPH, refuse

refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.ast_transformer",
    ["DygraphToStaticAst", "convert_to_static"],
    DYGRAPH,
)
