"""``paddle.fluid.dygraph.dygraph_to_static.list_transformer``: dygraph-to-static conversion
(list_transformer). pe runs static graphs: each name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

from ...unsupported import DYGRAPH, optional_module, refuse

astor = optional_module("astor")
gast = optional_module("gast")
refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.list_transformer",
    [
        "AstNodeWrapper",
        "ListTransformer",
        "NodeVarType",
        "StaticAnalysisVisitor",
        "ast_to_source_code",
        "is_control_flow_to_transform",
    ],
    DYGRAPH,
)
