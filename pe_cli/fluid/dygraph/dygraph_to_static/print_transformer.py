"""``paddle.fluid.dygraph.dygraph_to_static.print_transformer``: dygraph-to-static conversion
(print_transformer). pe runs static graphs: each name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

from ...unsupported import DYGRAPH, optional_module, refuse

gast = optional_module("gast")
refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.print_transformer",
    ["AstNodeWrapper", "NodeVarType", "PrintTransformer", "StaticAnalysisVisitor"],
    DYGRAPH,
)
