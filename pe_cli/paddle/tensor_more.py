"""More of Paddle 2.x's top-level tensor names: those over the ops Fluid 1.x's layers lacked
(``where``, ``tril``/``triu``, ``shape``: ops/tensor_v2.py) and those composed from several layers
(``cumsum`` over the flattened x, ``scatter_nd_add``/``scatter_nd`` as a row scatter-add)."""
import numbers

import numpy as np

from .. import layers as L
from ..dtypes import convert_dtype
from ..errors import ArgumentTypeError, ArgumentValueError, PeError
from ..framework.variable import Variable
from ..layers.tensor import _single
from .tensor_create import nonzero
from .tensor_manip import _known, broadcast_to

__all__ = ["where", "tril", "triu", "shape", "cumsum", "scatter_nd_add", "scatter_nd"]


def _common_shape(shapes):
    rank = max(len(s) for s in shapes)
    padded = [[1] * (rank - len(s)) + list(s) for s in shapes]
    out = []
    for dims in zip(*padded):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise PeError(f"paddle.where: condition, x and y of shapes {[list(s) for s in shapes]} cannot broadcast")
        out.append(sizes.pop() if sizes else 1)
    return out


def where(condition, x=None, y=None, name=None):
    """x where ``condition``, else y (the three broadcast to one shape; a number becomes a
    constant). With neither x nor y: ``nonzero(condition, as_tuple=True)``."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise PeError("paddle.where: give both x and y, or neither")
    like = x if isinstance(x, Variable) else y
    x, y = (v if isinstance(v, Variable) else L.fill_constant([1], like.dtype, v) for v in (x, y))
    shapes = [list(v.shape) for v in (condition, x, y)]
    if not (shapes[0] == shapes[1] == shapes[2]):
        target = _common_shape(shapes)
        condition, x, y = (v if list(v.shape) == target else broadcast_to(v, target) for v in (condition, x, y))
    if condition.dtype != "bool":
        condition = L.cast(condition, "bool")
    return _single("where", x, {"Condition": [condition], "X": [x], "Y": [y]}, {}, name=name)


def _triangle(op, x, diagonal, lower, name):
    if not isinstance(diagonal, numbers.Integral) or isinstance(diagonal, bool):
        raise ArgumentTypeError(f"paddle.{op}: diagonal in {op} must be a python Int, got {diagonal!r}")
    if len(x.shape) < 2:
        raise ArgumentValueError(f"paddle.{op}: x shape in {op} must be at least 2-D, got {list(x.shape)}")
    return _single("tril_triu", x, {"X": [x]}, {"diagonal": int(diagonal), "lower": lower}, name=name)


def tril(x, diagonal=0, name=None):
    """x's lower triangle (col - row <= diagonal) in its last two dims, zeros elsewhere."""
    return _triangle("tril", x, diagonal, True, name)


def triu(x, diagonal=0, name=None):
    """x's upper triangle (col - row >= diagonal) in its last two dims, zeros elsewhere."""
    return _triangle("triu", x, diagonal, False, name)


def shape(input):
    """The dims of ``input`` at run time: an int32 Tensor [rank]."""
    return _single("shape", input, {"Input": [input]}, {}, dtype="int32", stop_gradient=True)


def cumsum(x, axis=None, dtype=None, name=None):
    """The running sum along ``axis`` (None: over the flattened x), cast to ``dtype`` first."""
    if dtype is not None and convert_dtype(dtype) != x.dtype:
        x = L.cast(x, dtype)
    if axis is None:
        x, axis = L.reshape(x, [-1]), 0
    return L.cumsum(x, axis=int(axis))


def scatter_nd_add(x, index, updates, name=None):
    """x with each updates[i...] added at x[index[i..., :]] (repeated indices add up); index's last
    dim k picks an element (k = rank of x) or a slice of x."""
    xs = _known(x, "scatter_nd_add")
    k = index.shape[-1]
    if not 0 < k <= len(xs):
        raise PeError(f"paddle.scatter_nd_add: index's last dim {k} must be in 1..{len(xs)} (x is {xs})")
    rows, width = int(np.prod(xs[:k])), int(np.prod(xs[k:]))
    strides = [int(np.prod(xs[i + 1:k])) for i in range(k)]
    flat_ids = L.reduce_sum(L.elementwise_mul(L.cast(index, "int64"), L.assign(np.asarray(strides, np.int64))),
                            dim=-1)
    flat_ids = L.reshape(flat_ids, [-1])
    added = L.scatter(L.zeros([rows, width], x.dtype), flat_ids, L.reshape(updates, [-1, width]), overwrite=False)
    return L.elementwise_add(x, L.reshape(added, xs), name=name)


def scatter_nd(index, updates, shape, name=None):
    """zeros of ``shape`` with updates scattered (added) at ``index``: scatter_nd_add on zeros."""
    return scatter_nd_add(L.zeros([int(d) for d in shape], updates.dtype), index, updates, name=name)
