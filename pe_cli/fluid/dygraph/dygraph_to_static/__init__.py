"""``paddle.fluid.dygraph.dygraph_to_static``: dygraph-to-static conversion (dygraph_to_static). pe runs static
graphs: each name of dygraph mode says so in one line."""

from ...unsupported import DYGRAPH, refuse

refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static",
    [
        "AstNodeWrapper",
        "DygraphToStaticAst",
        "LoopTransformer",
        "NameVisitor",
        "NodeVarType",
        "ProgramTranslator",
        "StaticAnalysisVisitor",
        "convert_call",
        "convert_function_with_cache",
        "convert_to_static",
        "create_static_variable_gast_node",
        "data_layer_not_check",
        "to_static_variable_gast_node",
    ],
    DYGRAPH,
)
