"""Paddle 2.x's names that rearrange or difference a tensor along its axes, from pe's ops:
``moveaxis`` (a transpose), ``vsplit`` (split along dim 0), ``reverse`` (flip), ``diff`` (n-th forward
differences, with ``prepend``/``append``), ``broadcast_shape`` (of two shapes, in Python), and the
products over axes ``inner`` and ``outer`` (matmuls of reshaped operands)."""
import numpy as np

from .. import layers as L
from ..base.dtypes import convert_dtype
from . import tensor_manip as TM

__all__ = ["moveaxis", "vsplit", "reverse", "diff", "broadcast_shape", "inner", "outer"]

_END = 2 ** 31 - 1


def _axes(values, rank, what):
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    out = []
    for v in values:
        if not -rank <= int(v) < rank:
            raise ValueError(f"paddle.moveaxis: {what} {v} is outside the {rank} dims of x")
        out.append(int(v) % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"paddle.moveaxis: {what} {values} repeats an axis")
    return out


def moveaxis(x, source, destination, name=None):
    """x with its ``source`` axes moved to the ``destination`` positions (the others keep their order)."""
    rank = len(x.shape)
    src, dst = _axes(source, rank, "source"), _axes(destination, rank, "destination")
    if len(src) != len(dst):
        raise ValueError(f"paddle.moveaxis: source {source} and destination {destination} differ in length")
    order = [d for d in range(rank) if d not in src]
    for to, frm in sorted(zip(dst, src)):
        order.insert(to, frm)
    return L.transpose(x, order, name=name)


def vsplit(x, num_or_sections, name=None):
    """split(x, num_or_sections, axis=0), for x of 2 or more dims."""
    if len(x.shape) < 2:
        raise ValueError(f"The input tensor's dimension must be greater than 1, but got {len(x.shape)}")
    return TM.split(x, num_or_sections, axis=0, name=name)


def reverse(x, axis, name=None):
    """flip(x, axis)."""
    return TM.flip(x, axis, name=name)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The ``n``-th forward difference out[i] = x[i + 1] - x[i] along ``axis`` (bool x: their xor),
    with ``prepend`` / ``append`` joined to x along that axis first."""
    axis = int(axis) % len(x.shape)
    parts = [v for v in (prepend, x, append) if v is not None]
    out = L.concat(parts, axis=axis) if len(parts) > 1 else x
    boolean = convert_dtype(x.dtype) == "bool"
    for _ in range(int(n)):
        later = L.slice(out, axes=[axis], starts=[1], ends=[_END])
        earlier = L.slice(out, axes=[axis], starts=[0], ends=[-1])
        out = L.logical_xor(later, earlier) if boolean else L.elementwise_sub(later, earlier)
    return out


def broadcast_shape(x_shape, y_shape):
    """The shape two tensors of these shapes broadcast to (numpy's rule); a ValueError when they do not."""
    return list(np.broadcast_shapes(tuple(x_shape), tuple(y_shape)))


def _rows(x, k):
    return L.reshape(x, [-1, k])


def inner(x, y, name=None):
    """sum(x[..., :] * y[..., :]) over the last dims: shape x.shape[:-1] + y.shape[:-1] (scalars: x * y)."""
    if not x.shape or not y.shape:
        return L.elementwise_mul(x, y, name=name)
    k = x.shape[-1]
    if k != y.shape[-1] or k < 0:
        raise ValueError(f"paddle.inner: the last dims of x {list(x.shape)} and y {list(y.shape)} must be equal "
                         f"and known")
    product = L.matmul(_rows(x, k), _rows(y, k), transpose_y=True)
    return L.reshape(product, list(x.shape[:-1]) + list(y.shape[:-1]), name=name)


def outer(x, y, name=None):
    """x (flattened) as a column times y (flattened) as a row."""
    return L.matmul(L.reshape(x, [-1, 1]), L.reshape(y, [1, -1]), name=name)
