"""The broadcasting family's shape rules, shared by the kernels of both devices: the shape X expands to, and
expand's operands for it."""

from ..base.broadcast_shapes import expanded_shape
from ..base.errors import PeError


def target_of(op, x_shape, shape):
    """The shape X expands to (-1: X's dim), checked as Paddle's kernel checks it."""
    out = expanded_shape(tuple(x_shape), [int(t) for t in shape])
    if out is None:
        raise PeError(
            f"{op}: cannot expand X {list(x_shape)} to {list(shape)}: each dim of X must be 1 or equal "
            f"the target's (-1 keeps X's), the target at least X's rank"
        )
    return out


def times_of(x_shape, target):
    """(X's shape with leading 1s, the times each dim repeats): expand's operands."""
    padded = (1,) * (len(target) - len(x_shape)) + tuple(x_shape)
    return padded, [t // d if d else 1 for d, t in zip(padded, target)]
