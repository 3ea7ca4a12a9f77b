"""More of Paddle 2.x's top-level tensor names: those over the ops Fluid 1.x's layers lacked
(``where``, ``tril``/``triu``, ``shape``: ops/tensor_v2.py) and those composed from several layers
(``cumsum`` over the flattened x, ``scatter_nd_add``/``scatter_nd`` as a row scatter-add)."""
import numbers

import numpy as np

from .. import layers as L
from ..dtypes import convert_dtype
from ..errors import ArgumentTypeError, ArgumentValueError, PeError
from ..framework.variable import Variable
from ..layers.helper import LayerHelper
from ..layers.helper import _single
from .device import get_default_dtype
from .tensor_create import argmax, full_like, nonzero
from .tensor_manip import _known, broadcast_to

__all__ = ["where", "tril", "triu", "shape", "cumsum", "scatter_nd_add", "scatter_nd", "bernoulli", "histogram",
           "inverse", "cholesky", "multinomial"]


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
    constant of the other's shape). With neither x nor y: ``nonzero(condition, as_tuple=True)``."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise PeError("paddle.where: give both x and y, or neither")
    like = x if isinstance(x, Variable) else y if isinstance(y, Variable) else condition
    dtype = like.dtype if like is not condition else get_default_dtype()
    x, y = (v if isinstance(v, Variable) else full_like(like, v, dtype) for v in (x, y))
    shapes = [list(v.shape) for v in (condition, x, y)]
    if not (shapes[0] == shapes[1] == shapes[2]):
        target = _common_shape(shapes)
        if any(t < 0 and len(s) == len(target) and s[i] == 1 for s in shapes for i, t in enumerate(target)):
            raise PeError(f"paddle.where: condition, x and y of shapes {shapes} broadcast along a dim whose size "
                          f"is unknown when the program is built; pe needs it known")
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


def inverse(x, name=None):
    """The inverse of each square matrix in x's last two dims (an error names a singular one)."""
    helper = LayerHelper("inverse", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("inverse", {"Input": [x]}, {"Output": [out]})
    return out


def cholesky(x, upper=False, name=None):
    """L with L L^T = x (or U = L^T when ``upper``) for each symmetric positive-definite matrix in
    x's last two dims (x is read as (x + x^T) / 2; an error names one that is not positive definite)."""
    return _single("cholesky", x, {"X": [x]}, {"upper": bool(upper)}, name=name)


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


def bernoulli(x, name=None):
    """1 with probability x[i], else 0, elementwise (x's dtype); x's shape must be known."""
    draws = L.uniform_random(_known(x, "bernoulli"), x.dtype, 0.0, 1.0)
    return L.cast(L.less_than(draws, x), x.dtype)


def histogram(input, bins=100, min=0, max=0, name=None):  # noqa: A002 -- Paddle's names
    """The int64 counts of input's values in ``bins`` equal bins over [min, max] (the last bin
    closed); min == max: over [input's min, input's max] (widened by 1 each way when they are
    equal too). Values outside are not counted."""
    x = L.reshape(input, [-1])
    if not x.dtype.startswith("float"):
        x = L.cast(x, "float64")
    if min == max:
        lo, hi = L.reduce_min(x), L.reduce_max(x)
    else:
        lo, hi = L.fill_constant([1], x.dtype, min), L.fill_constant([1], x.dtype, max)
    same = L.cast(L.equal(lo, hi), x.dtype)
    lo, hi = L.elementwise_sub(lo, same), L.elementwise_add(hi, same)
    ids = L.cast(L.floor(L.elementwise_div(L.scale(L.elementwise_sub(x, lo), scale=float(bins)),
                                           L.elementwise_sub(hi, lo))), "int64")
    inside = L.cast(L.logical_and(L.greater_equal(x, lo), L.less_equal(x, hi)), "int64")
    ids = L.elementwise_min(ids, L.fill_constant([1], "int64", bins - 1))      # x == hi: the last bin
    ids = L.elementwise_add(L.elementwise_mul(ids, inside), L.scale(inside, scale=-float(bins), bias=float(bins)))
    rows = L.one_hot(L.reshape(ids, [-1, 1]), depth=int(bins), allow_out_of_range=True)
    return L.cast(L.reduce_sum(rows, dim=0), "int64")


def multinomial(x, num_samples=1, replacement=False, name=None):
    """int64 [.., num_samples] category indices drawn from each row of weights x (1-D or 2-D,
    nonnegative, of known shape). Each category scores log(w) - log(-log(u)) for a uniform u: with
    ``replacement`` each draw is the best of fresh scores (Gumbel-max), without it the num_samples
    best of one set (Efraimidis-Spirakis), so a category comes once. All finite: weights below the
    dtype's smallest normal count as that value."""
    shape = _known(x, "multinomial")
    if len(shape) not in (1, 2):
        raise PeError(f"paddle.multinomial: x {shape} must be 1-D or 2-D")
    if not replacement and num_samples > shape[-1]:
        raise PeError(f"paddle.multinomial: num_samples={num_samples} exceeds the {shape[-1]} categories; "
                      f"without replacement each category is drawn at most once")
    info = np.finfo(np.dtype(x.dtype))
    tiny, below_one = float(info.tiny), float(1 - info.epsneg)     # u in [tiny, 1 - eps]: log(-log u) finite
    log_w = L.log(L.elementwise_max(x, L.fill_constant([1], x.dtype, tiny)))
    draws = shape if not replacement else shape[:-1] + [int(num_samples), shape[-1]]
    u = L.uniform_random(draws, x.dtype, tiny, below_one)
    noise = L.log(L.scale(L.log(u), scale=-1.0))
    if not replacement:
        return L.topk(L.elementwise_sub(log_w, noise), k=int(num_samples))[1]
    return argmax(L.elementwise_sub(L.unsqueeze(log_w, [len(shape) - 1]), noise), axis=-1)
