"""momentum and merged_momentum on the CPU: momentum is a structured kernel (its meta rule in
pe_cli/shapes/optimizer.py, its out-kernel in optimizer_out.py: Fluid's update with Paddle 2.x's gradient
terms and master copy), the two as a kernel in optimizer.py; merged_momentum is that kernel over its lists
(pe_cli/kernels/momentum_terms.py), a structured kernel too (its rule: shapes/fused_optimizer.merged_momentum_meta,
momentum's on each parameter's entries): the "each" variant, ``fresh``, puts the values each parameter's update made
(over Param and its state where the call's context lets the update write in place: it ``takes_context``)."""

from ...shapes.fused_optimizer import merged_momentum_meta
from ..momentum_terms import merged_over_lists
from ..structured import adapter
from .optimizer import momentum

_merged = merged_over_lists(momentum)


def _merged_momentum(ins, outs, attrs, meta, ctx):
    outs.update(_merged(ins, attrs, ctx))


_merged_momentum.takes_context = True
MERGED_MOMENTUM = _merged_momentum
merged_momentum = adapter(merged_momentum_meta, MERGED_MOMENTUM, "merged_momentum")
