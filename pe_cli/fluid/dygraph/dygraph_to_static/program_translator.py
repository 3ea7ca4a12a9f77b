"""``paddle.fluid.dygraph.dygraph_to_static.program_translator``: dygraph-to-static conversion
(program_translator). pe runs static graphs: each name of dygraph mode says so in one line."""

from ...unsupported import DYGRAPH, refuse

refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.program_translator",
    ["ProgramTranslator", "convert_function_with_cache"],
    DYGRAPH,
)
