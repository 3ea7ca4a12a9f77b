"""``paddle.fluid.dygraph.dygraph_to_static.basic_api_transformer``: dygraph-to-static conversion
(basic_api_transformer). pe runs static graphs: each name of dygraph mode says so in one line."""

from ... import unique_name  # noqa: F401
from ...unsupported import DYGRAPH, optional_module, refuse

astor = optional_module("astor")
dygraph_class_to_static_api = {
    "CosineDecay": "cosine_decay",
    "ExponentialDecay": "exponential_decay",
    "InverseTimeDecay": "inverse_time_decay",
    "NaturalExpDecay": "natural_exp_decay",
    "NoamDecay": "noam_decay",
    "PiecewiseDecay": "piecewise_decay",
    "PolynomialDecay": "polynomial_decay",
}
gast = optional_module("gast")
refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.basic_api_transformer",
    [
        "AstNodeWrapper",
        "BasicApiTransformer",
        "is_dygraph_api",
        "is_to_variable",
        "to_assign_node",
        "to_static_ast",
        "update_args_of_func",
    ],
    DYGRAPH,
)
