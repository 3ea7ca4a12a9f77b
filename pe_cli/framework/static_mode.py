"""Paddle 2.x's mode switches as pe keeps them. pe builds static graphs only; a Paddle 2.x program
enters static mode with ``paddle.enable_static()`` (without it, Paddle 2.x runs eagerly) and may leave it
with ``paddle.disable_static()``, typically on its last line once its static work is done. pe accepts
that call and refuses, in one line naming the call, what would run eagerly after it: building an op
(``Block._make_op`` asks ``check_building``). The eager-only calls themselves (``Tensor.numpy()``,
``loss.backward()``, ``paddle.to_tensor`` in a program that never entered static mode) say so in one
line through ``refuse``."""

from ..base.errors import FluidUnsupported
from .source import called_function, current_source

STATIC_ONLY = "pe runs static graphs only"

_entered = False  # paddle.enable_static() was called in this process
_left_at = None  # where paddle.disable_static() was called since ("train.py:40"), or None


def enter_static():
    """``paddle.enable_static()``: static mode (again)."""
    global _entered, _left_at
    _entered, _left_at = True, None


def leave_static():
    """``paddle.disable_static()``: what the program builds from now on would run eagerly in Paddle."""
    global _left_at
    _left_at = current_source() or "?"


def entered_static():
    """Whether the program called ``paddle.enable_static()`` (and has not left static mode since)."""
    return _entered and _left_at is None


def left_static_at():
    return _left_at


def check_building(op_type):
    """Refuses an op built after ``paddle.disable_static()``: Paddle would run the call eagerly."""
    if _left_at is not None:
        _after_leaving(called_function() or f"an op {op_type!r}")


def check_eager_call(call):
    """Refuses ``call`` (``paddle.to_tensor``), which makes an eager tensor in Paddle outside static mode:
    after ``paddle.disable_static()``, or in a program that never called ``paddle.enable_static()``."""
    if _left_at is not None:
        _after_leaving(call)
    if not _entered:
        raise FluidUnsupported(
            call,
            f"a dygraph (eager) call; {STATIC_ONLY}: this program never called "
            f"paddle.enable_static(), so in Paddle 2.x it runs eagerly; call "
            f"paddle.enable_static() first and feed data through paddle.static.data and "
            f"exe.run(feed=...)",
        )


def _after_leaving(call):
    raise FluidUnsupported(
        call,
        f"called in dygraph mode (after paddle.disable_static() at {_left_at}); "
        f"{STATIC_ONLY}: build and run the static program before "
        f"paddle.disable_static(), or call paddle.enable_static() again",
    )


def refuse(call, instead):
    """The one line for an eager-only call (``Tensor.numpy()``) in pe: what to use instead (and, in a
    program not in static mode, that Paddle runs this part eagerly)."""
    if _left_at is not None:
        _after_leaving(call)
    mode = "" if _entered else " (this program has not called paddle.enable_static(): Paddle 2.x runs it eagerly)"
    raise FluidUnsupported(call, f"a dygraph (eager) call{mode}; {STATIC_ONLY}: {instead}")
