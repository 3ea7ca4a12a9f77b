"""``paddle.incubate.autograd.primapi`` (Paddle 2.6): turns a program's ops into primitive ops.
pe has no decompositions (pe_cli/fluid/core_prim.py): ``prim_enabled()`` is False, ``disable_prim()``
changes nothing, and what would decompose refuses in one line."""

from ....base.errors import unsupported
from ....fluid.core_prim import PRIM_WHY

__all__ = ["disable_prim", "enable_prim", "forward_grad", "grad", "prim_enabled", "to_prim"]


def prim_enabled():
    """False: pe never decomposes ops."""
    return False


def disable_prim():
    """Nothing to do: decompositions are always off in pe."""


enable_prim, forward_grad, grad, to_prim = (
    unsupported(f"paddle.incubate.autograd.primapi.{name}", PRIM_WHY)
    for name in ("enable_prim", "forward_grad", "grad", "to_prim")
)
