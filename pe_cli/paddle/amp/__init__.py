"""``paddle.amp``: automatic mixed precision, as Paddle 2.6.2 gives it to a static-graph program. Its
``auto_cast``, ``decorate`` and ``GradScaler`` are dygraph-only in Paddle 2.6.2: in static mode each raises
Paddle's own AssertionError ("We only support 'amp_guard()' in dynamic graph mode, ..."), and pe runs static
graphs only, so in pe they always do (auto_cast.py, grad_scaler.py); a static program uses
``paddle.static.amp``. The op lists (amp_lists.py) are Paddle's; ``is_float16_supported`` and
``is_bfloat16_supported`` answer False, as Paddle 2.6.2 on the CPU (pe's kernels compute in float32)."""

from . import accuracy_compare, amp_lists, auto_cast as _auto_cast_module, debugging, grad_scaler  # noqa: F401
from .amp_lists import black_list, white_list  # noqa: F401
from .auto_cast import amp_decorate, amp_guard, auto_cast, decorate  # noqa: F401
from .grad_scaler import AmpScaler, GradScaler, OptimizerState  # noqa: F401

__all__ = ["auto_cast", "GradScaler", "decorate", "is_float16_supported", "is_bfloat16_supported"]


def is_float16_supported(device=None):
    """Whether ``device`` computes in float16: False, as Paddle 2.6.2 answers on the CPU (pe's kernels, on
    every device, compute in float32)."""
    return False


def is_bfloat16_supported(device=None):
    """Whether ``device`` computes in bfloat16: False (pe has no bfloat16 dtype; Paddle 2.6.2 on this CPU)."""
    return False
