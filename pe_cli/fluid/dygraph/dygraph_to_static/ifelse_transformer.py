"""``paddle.fluid.dygraph.dygraph_to_static.ifelse_transformer``: dygraph-to-static conversion
(ifelse_transformer). pe runs static graphs: each name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

import copy  # noqa: F401

from ... import unique_name  # noqa: F401
from collections import defaultdict  # noqa: F401
from ...unsupported import DYGRAPH, optional_module, refuse

FALSE_FUNC_PREFIX = "false_fn"
LOGIC_AND_PREFIX = "logic_and"
LOGIC_NOT_PREFIX = "logic_not"
LOGIC_OR_PREFIX = "logic_or"
PLAIN_TENSOR_PREFIX = "bool_tensor"
TRUE_FUNC_PREFIX = "true_fn"
gast = optional_module("gast")
refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.ifelse_transformer",
    [
        "AstNodeWrapper",
        "IfConditionVisitor",
        "IfElseTransformer",
        "IsControlFlowVisitor",
        "NameVisitor",
        "NodeTestTransformer",
        "NodeVarType",
        "StaticAnalysisVisitor",
        "ast_to_source_code",
        "compare_with_none",
        "create_assign_node",
        "create_cond_node",
        "create_funcDef_node",
        "get_name_ids",
        "is_candidate_node",
        "is_paddle_api",
        "parse_cond_args",
        "parse_cond_return",
        "transform_if_else",
    ],
    DYGRAPH,
)
