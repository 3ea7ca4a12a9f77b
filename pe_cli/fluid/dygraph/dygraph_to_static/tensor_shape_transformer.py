"""``paddle.fluid.dygraph.dygraph_to_static.tensor_shape_transformer``: dygraph-to-static conversion
(tensor_shape_transformer). pe runs static graphs: each name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

from ...unsupported import DYGRAPH, optional_module, refuse

gast = optional_module("gast")
refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.tensor_shape_transformer",
    [
        "AstNodeWrapper",
        "NodeVarType",
        "StaticAnalysisVisitor",
        "TensorShapeTransformer",
        "create_api_shape_node",
        "is_paddle_api",
    ],
    DYGRAPH,
)
