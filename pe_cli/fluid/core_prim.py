"""Paddle 2.6's switches of its primitive-op ("prim") decompositions and of its kernel autotuning, which its op tests turn on to
check an op's composite rule (``check_prim``). pe runs its registered ops and builds gradients from
its registered grad ops, never decomposing either: each switch accepts off (what pe is) and refuses
on in one line, so a case that checks a decomposition fails naming why instead of passing unchecked."""

from ..base.errors import FluidUnsupported

__all__ = [
    "_is_all_prim_enabled",
    "_is_eager_prim_enabled",
    "_set_prim_all_enabled",
    "_set_prim_backward_enabled",
    "_set_prim_forward_enabled",
    "set_prim_eager_enabled",
    "PRIM_WHY",
    "disable_autotune",
    "disable_layout_autotune",
    "enable_autotune",
    "enable_layout_autotune",
    "set_autotune_range",
    "update_autotune_status",
]

PRIM_WHY = (
    "Paddle 2.6's primitive-op decompositions (prim, composite rules); pe runs each op by its own "
    "kernel and each gradient by its registered grad op, so there is no decomposition to check"
)


def _switch(name):
    def switch(flag):
        if flag:
            raise FluidUnsupported(f"paddle.base.core.{name}(True)", PRIM_WHY)

    switch.__name__ = name
    switch.__doc__ = f"Paddle 2.6's ``core.{name}``: off is what pe is; on is refused (no decompositions)."
    return switch


_set_prim_all_enabled = _switch("_set_prim_all_enabled")
_set_prim_forward_enabled = _switch("_set_prim_forward_enabled")
_set_prim_backward_enabled = _switch("_set_prim_backward_enabled")
set_prim_eager_enabled = _switch("set_prim_eager_enabled")


def _is_all_prim_enabled():
    """False: pe never decomposes ops."""
    return False


def _is_eager_prim_enabled():
    """False: pe never decomposes ops."""
    return False


def _no_autotune(name):
    def call(*args):
        """Paddle 2.6's GPU kernel autotuning (which of equal kernels runs fastest; results do not
        change): pe's kernels are chosen by the op alone, so there is nothing to tune."""

    call.__name__ = name
    return call


enable_autotune, disable_autotune = _no_autotune("enable_autotune"), _no_autotune("disable_autotune")
enable_layout_autotune = _no_autotune("enable_layout_autotune")
disable_layout_autotune = _no_autotune("disable_layout_autotune")
set_autotune_range, update_autotune_status = _no_autotune("set_autotune_range"), _no_autotune("update_autotune_status")
