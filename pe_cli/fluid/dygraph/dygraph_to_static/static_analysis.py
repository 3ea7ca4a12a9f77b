"""``paddle.fluid.dygraph.dygraph_to_static.static_analysis``: dygraph-to-static conversion (static_analysis).
pe runs static graphs: each name of dygraph mode says so in one line."""

from ...unsupported import DYGRAPH, refuse

refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.static_analysis",
    ["AstNodeWrapper", "NodeVarType", "StaticAnalysisVisitor"],
    DYGRAPH,
)
