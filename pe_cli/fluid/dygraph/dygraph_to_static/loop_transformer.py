"""``paddle.fluid.dygraph.dygraph_to_static.loop_transformer``: dygraph-to-static conversion
(loop_transformer). pe runs static graphs: each name of dygraph mode says so in one line."""

from ...unsupported import DYGRAPH, refuse

refuse(
    globals(), "paddle.fluid.dygraph.dygraph_to_static.loop_transformer", ["LoopTransformer", "NameVisitor"], DYGRAPH
)
