"""The manipulation family's rules as the kernels of both devices apply them at run time, every dim known:
shapes/manipulation.py's rules, raising PeError with what was asked where they fail."""

import math

import numpy as np

from ..base.errors import PeError
from . import manipulation
from .manipulation import SLICE_END, reshape_target
from .reduction import scalar_shape


def reshape_shape(x_shape, size, shape):
    """The target shape by Fluid's rule (0 copies X's dim, one -1 is inferred), checked against
    X's ``size`` elements."""
    shape = [int(d) for d in shape]
    out, error = reshape_target(x_shape, shape)
    if error:
        raise PeError(f"cannot reshape X of shape {list(x_shape)} to {shape}: {error}")
    return out


def split_sizes(x_shape, axis, attrs):
    """The sizes of split's parts along ``axis``: ``num`` equal ones, or ``sections`` (one -1 inferred)."""
    sizes, error = manipulation.split_sizes(x_shape, axis, attrs["num"], attrs["sections"])
    if error:
        raise PeError(f"split: {error}")
    return sizes


def squeeze_axes(x_shape, axes):
    """The axes squeeze removes: ``axes`` (each checked to be 1), or every dim of size 1."""
    out, error = manipulation.squeeze_axes(x_shape, axes)
    if error:
        raise PeError(f"cannot squeeze X of shape {list(x_shape)} along axes {list(axes)}: {error}")
    return out


def unsqueeze_shape(x_shape, axes):
    out, error = manipulation.unsqueeze_shape(x_shape, axes)
    if error:
        raise PeError(f"cannot unsqueeze X of shape {list(x_shape)} along axes {list(axes)}: {error}")
    return out


def slice_window(shape, attrs):
    """(start per dim, size per dim) of slice's window: negative bounds count from the end, all
    are clipped to the dim."""
    ends, flags, decrease = list(attrs["ends"]), attrs.get("infer_flags") or (), attrs.get("decrease_axis") or ()
    for i, (a, s, e) in enumerate(zip(attrs["axes"], attrs["starts"], ends)):
        if s == -1 and e == 0 and a in decrease and i < len(flags) and flags[i] == -1:
            ends[i] = SLICE_END  # Fluid's kernel: var[i] with a Variable i of -1 (ends i + 1) is the last
    return manipulation.slice_window(shape, attrs["axes"], attrs["starts"], ends)


def check_slice_not_empty(x_shape, sizes, attrs):
    if int(np.prod(sizes)) == 0:
        raise PeError(
            f"slice of Input of shape {list(x_shape)} with axes={list(attrs['axes'])}, "
            f"starts={list(attrs['starts'])}, ends={list(attrs['ends'])} is empty"
        )


def reshape_target_at_run(ins, attrs, host=np.asarray):
    """reshape's target: the Shape input's values, else one value per ShapeTensor tensor, else the
    shape attribute. ``host`` brings a device tensor to numpy."""
    if "Shape" in ins:
        return host(ins["Shape"]).reshape(-1).tolist()
    if "ShapeTensor" in ins:
        return [int(host(t).reshape(-1)[0]) for t in ins["ShapeTensor"]]
    return attrs["shape"]


def tile_operands(x, repeat_times):
    """(X's shape, the times) of tile as expand's: the shorter one with leading 1s."""
    n = max(x.ndim, len(repeat_times))
    return (1,) * (n - x.ndim) + tuple(x.shape), [1] * (n - len(repeat_times)) + list(repeat_times)


def unbind_view(x_shape, axis, k, zero_dim=False):
    """(rows, cols, output shape): unbind's k outputs read X's first rows * k * cols elements as [rows, k,
    cols], rows the dims before ``axis``, cols those after (Fluid's split functor; k = X's dim: its slices).
    The slices of a 1-D X are [1], or 0-D where the op says so (``zero_dim``: Paddle 2.6's)."""
    rows, cols = math.prod(x_shape[:axis]), math.prod(x_shape[axis + 1 :])
    return rows, cols, tuple(d for j, d in enumerate(x_shape) if j != axis) or scalar_shape(zero_dim)


def reverse_axes(ndim, attrs):
    """The axes reverse flips; Fluid's kernels take tensors of rank 1 to 6 (test_reverse_op.py's TestCase4
    wants its EnforceNotMet for rank 7)."""
    if ndim > 6:
        raise PeError(f"reverse: X has rank {ndim}; Fluid's reverse takes ranks up to 6")
    return tuple(sorted({a % max(ndim, 1) for a in attrs["axis"]}))


def expand_times(x_shape, target_shape):
    """How many times X tiles along each dim to reach the target's shape, checked."""
    if len(x_shape) != len(target_shape) or any(t % x if x else t for x, t in zip(x_shape, target_shape)):
        raise PeError(
            f"expand_as: target_tensor {list(target_shape)} is not X {list(x_shape)} tiled (each dim a multiple of X's)"
        )
    return [t // x if x else 1 for x, t in zip(x_shape, target_shape)]
