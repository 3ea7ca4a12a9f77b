"""``paddle.fluid.dygraph.checkpoint``: ``save_dygraph`` / ``load_dygraph`` of a dygraph Layer's or
optimizer's state_dict (.pdparams, .pdopt). Fluid 1.8.5 runs them in dygraph mode only; pe runs
static graphs, so each says so in one line (a static program's state is ``fluid.save`` /
``fluid.load_program_state``, which read and write the same files)."""

from ..unsupported import DYGRAPH, unsupported

__all__ = ["save_dygraph", "load_dygraph"]
save_dygraph = unsupported("paddle.fluid.dygraph.checkpoint.save_dygraph", DYGRAPH)
load_dygraph = unsupported("paddle.fluid.dygraph.checkpoint.load_dygraph", DYGRAPH)
