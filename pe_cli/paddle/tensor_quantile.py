"""``paddle.quantile`` and ``paddle.nanquantile`` (Paddle 2.6's: numpy's 'linear' interpolation; pe
also takes numpy's lower, higher, nearest and midpoint as the keyword-only ``interpolation``), built
from pe's ops: the reduced axes moved last and merged, values sorted (argsort puts NaN last), and
the two neighbours of position q * (n - 1) picked by one-hot weights and blended. quantile gives NaN
where a slice holds a NaN; nanquantile skips NaNs (n counts the others) and gives NaN where a slice
holds nothing else. The reduced dims need their sizes known when the program is built."""

import math
import numbers

from .. import layers as L
from ..layers.manipulation import reshape_variable
from ..framework.variable import Variable
from .tensor_manip import _known, no_axis_of_0d
from .tensor_indexing_axis import take_along_axis
from .tensor_search import _sorted, where
from ..framework.program_release import paddle_face

__all__ = ["quantile", "nanquantile"]

_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _check(fn, x, q, axis, interpolation):
    if not isinstance(x, Variable):
        raise TypeError(f"paddle.{fn}: input x should be a Tensor, got {type(x).__name__}")
    qs = list(q) if isinstance(q, (list, tuple)) else [q]
    if not qs:
        raise ValueError(f"paddle.{fn}: q should not be empty")
    for v in qs:
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not 0 <= v <= 1:
            raise ValueError(f"paddle.{fn}: q should be in range [0, 1], got {v!r}")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"paddle.{fn}: interpolation must be one of {_INTERPOLATIONS}, got {interpolation!r}")
    rank = len(x.shape)
    axes = list(range(rank)) if axis is None else list(axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int):
            raise ValueError(f"paddle.{fn}: axis should be an int or a list of ints, got {a!r}")
        if not -rank <= a < max(rank, 1):
            raise ValueError(f"paddle.{fn}: axis should be in range [{-rank}, {rank}), got {a}")
    return qs, sorted({a % rank for a in axes}) if rank else [0]


def _to_last(x, axes, fn):
    """x with ``axes`` moved last and merged into one dim of known size n; (that tensor, n)."""
    shape = _known(x, fn, axes)
    rest = [d for d in range(len(shape)) if d not in axes]
    moved = L.transpose(x, rest + axes) if rest + axes != list(range(len(shape))) else x
    n = math.prod(shape[a] for a in axes)
    return reshape_variable(moved, [0] * len(rest) + [n]) if len(axes) != 1 else moved, n


def _position(q, count, interpolation):
    """(lower index, upper index, weight of the upper) as tensors, position q * (count - 1)."""
    pos = L.scale(L.elementwise_sub(count, L.ones_like(count)), scale=float(q))
    lo, hi = L.floor(pos), L.ceil(pos)
    if interpolation == "linear":
        frac = L.elementwise_sub(pos, lo)
    elif interpolation == "midpoint":
        frac = L.scale(L.cast(L.not_equal(lo, hi), pos.dtype), scale=0.5)
    elif interpolation == "nearest":  # numpy rounds half to even
        frac = L.cast(L.greater_than(L.elementwise_sub(pos, lo), L.fill_constant([1], pos.dtype, 0.5)), pos.dtype)
    else:
        frac = L.fill_constant([1], pos.dtype, 1.0 if interpolation == "higher" else 0.0)
    return lo, hi, frac


@paddle_face
def _pick(values, index, n):
    """values[..., index] for a per-slice index [...]: take_along_axis over the last dim, as Paddle 2.6's
    quantile (a one-hot weighted sum read NaN where a slice held an inf). An index outside [0, n) (a slice of
    no value, whose result is NaN anyway) reads the nearest end."""
    at = L.cast(L.clip(index, 0.0, float(max(n - 1, 0))), "int64")
    at = L.unsqueeze(at, [-1]) if len(at.shape) < len(values.shape) else at
    return L.squeeze(take_along_axis(values, at, -1), [-1])


@paddle_face
def _quantiles(fn, x, q, axis, keepdim, interpolation, skip_nan):
    if axis is not None:
        no_axis_of_0d(x, fn)
    qs, axes = _check(fn, x, q, axis, interpolation)
    rank = len(x.shape)
    flat, n = _to_last(x, axes, fn) if rank else (reshape_variable(x, [1]), 1)
    ordered = L.cast(_sorted(flat, -1, False)[0], "float64")  # (Paddle 2.6's: float64, whatever x's dtype)
    nan = L.not_equal(ordered, ordered)  # NaN != NaN
    clean = where(nan, L.zeros_like(ordered), ordered)
    nan_count = L.reduce_sum(L.cast(nan, ordered.dtype), dim=-1)
    count = (
        L.elementwise_sub(L.fill_constant([1], ordered.dtype, float(n)), nan_count)
        if skip_nan
        else L.fill_constant([1], ordered.dtype, float(n))
    )
    undefined = (
        L.less_equal(count, L.fill_constant([1], ordered.dtype, 0.0))
        if skip_nan
        else L.greater_than(nan_count, L.fill_constant([1], ordered.dtype, 0.0))
    )
    outs = []
    for value in qs:
        lo, hi, frac = _position(value, count, interpolation)
        low, high = _pick(clean, lo, n), _pick(clean, hi, n)
        out = L.elementwise_add(low, L.elementwise_mul(L.elementwise_sub(high, low), frac))
        out = where(undefined, L.fill_constant(list(out.shape) or [1], out.dtype, float("nan")), out)
        if keepdim and len(axes) == rank:
            out = reshape_variable(out, [1] * rank)
        elif keepdim:
            out = L.unsqueeze(out, axes)
        elif len(axes) == rank:  # every dim reduced: 0-D
            out = reshape_variable(out, [])
        outs.append(out)
    return L.stack(outs, axis=0) if isinstance(q, (list, tuple)) else outs[0]


def quantile(x, q, axis=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantile(s) of x along ``axis`` (None: all of x; a list: those dims together); a
    list q stacks its quantiles on a new first dim. NaN where a slice holds a NaN."""
    return _quantiles("quantile", x, q, axis, keepdim, interpolation, skip_nan=False)


def nanquantile(x, q, axis=None, keepdim=False, *, interpolation="linear"):
    """quantile of the values that are not NaN (NaN where a slice holds no other value)."""
    return _quantiles("nanquantile", x, q, axis, keepdim, interpolation, skip_nan=True)
