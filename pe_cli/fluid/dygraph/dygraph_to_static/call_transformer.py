"""``paddle.fluid.dygraph.dygraph_to_static.call_transformer``: dygraph-to-static conversion
(call_transformer). pe runs static graphs: each name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

from ...unsupported import DYGRAPH, optional_module, refuse

gast = optional_module("gast")
refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.call_transformer",
    ["AstNodeWrapper", "CallTransformer", "ast_to_source_code", "is_paddle_api"],
    DYGRAPH,
)
