"""Kernels of the fused update ops (pe_cli/ops/fused_optimizer.py): this device's update kernels
(optimizer.py) run on each parameter in turn within one op (pe_cli/kernels/fused_math.py), so the
numbers are those of the separate updates to the bit. Structured kernels (meta rules: shapes/fused_optimizer.py):
the "each" variant, ``fresh``, puts the values each parameter's update made (over Param and its state where the
call's context lets the update write in place: the out-kernel ``takes_context``)."""

from ...shapes.fused_optimizer import fused_update_meta
from ..fused_math import fused_update_kernels
from ..structured import adapter
from . import momentum, optimizer

_KERNELS = fused_update_kernels(momentum, optimizer)


def _each(fused):
    def out(ins, outs, attrs, meta, ctx):
        outs.update(fused(ins, attrs, ctx))

    out.__name__ = out.__qualname__ = f"{fused.__name__}_each"
    out.takes_context, out.launches = True, None
    return out


OUT = {op: _each(kernel) for op, kernel in _KERNELS.items()}


def _bound(op, base):
    """The kernel by name (CUDA's host ops, a caller of the kernel by name): the rule and the out-kernel."""
    return adapter(fused_update_meta(base.structured[0]), OUT[op], op)


fused_sgd = _bound("fused_sgd", optimizer.sgd)
fused_momentum = _bound("fused_momentum", momentum.momentum)
fused_adam = _bound("fused_adam", optimizer.adam)
