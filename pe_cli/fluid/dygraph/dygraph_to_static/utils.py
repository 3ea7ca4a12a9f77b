"""``paddle.fluid.dygraph.dygraph_to_static.utils``: dygraph-to-static conversion (utils). pe runs static
graphs: each name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

import ast  # noqa: F401
import atexit  # noqa: F401
import copy  # noqa: F401
import inspect  # noqa: F401
import os  # noqa: F401
import tempfile  # noqa: F401
import warnings

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
with warnings.catch_warnings():  # imp is deprecated (Python 3.12 removed it); Fluid's module holds it
    warnings.simplefilter("ignore", DeprecationWarning)
    imp = optional_module("imp")
six = optional_module("six")
refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.utils",
    [
        "IsControlFlowVisitor",
        "RenameTransformer",
        "ast_to_func",
        "ast_to_source_code",
        "compare_with_none",
        "create_api_shape_node",
        "create_assign_node",
        "create_funcDef_node",
        "generate_name_node",
        "get_attribute_full_name",
        "get_constant_variable_node",
        "index_in_list",
        "is_api_in_module",
        "is_candidate_node",
        "is_control_flow_to_transform",
        "is_dygraph_api",
        "is_numpy_api",
        "is_paddle_api",
        "is_to_variable",
        "recover_globals_attribute",
        "to_assign_node",
        "to_static_api",
        "to_static_ast",
        "update_args_of_func",
    ],
    DYGRAPH,
)
