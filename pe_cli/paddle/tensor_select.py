"""Paddle 2.x's functions that pick or replace elements by index (Paddle's python/paddle/tensor/
math.py and manipulation.py), composed of pe's ops: ``take`` (x flattened, gathered at an index of
any shape, with raise/wrap/clip modes), ``index_fill`` and ``select_scatter`` (a mask along one axis
chooses the new values), ``combinations`` (of a 1-D tensor's elements, as itertools') and ``vander``
(the Vandermonde matrix) and ``unique_consecutive``. The gradient reaches x where its values are kept."""

import numpy as np

from .. import layers as L
from ..framework.variable import Variable
from ..base.dtypes import convert_dtype
from ..layers.checks import check_dtype, check_type, check_variable_and_dtype
from ..layers.helper import LayerHelper
from . import tensor_create as TC
from . import tensor_manip as TM
from . import tensor_math as TH
from .tensor_inplace import _static_inplace
from .tensor_search import masked_select, where, where_any
from ..framework.program_release import paddle_face

__all__ = [
    "take",
    "index_fill",
    "index_fill_",
    "index_put",
    "index_put_",
    "select_scatter",
    "combinations",
    "vander",
    "unique_consecutive",
]


def take(x, index, mode="raise", name=None):
    """x's elements (x flattened) at ``index`` (int32/int64, any shape), in index's shape. A negative
    index counts from the end; ``wrap`` takes indices modulo x's size, ``clip`` clips them to it."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"'mode' in 'take' should be 'raise', 'wrap', 'clip', but received {mode}.")
    if not isinstance(index, Variable):
        raise TypeError(f"The type of 'index' must be Tensor, but got {type(index)}")
    check_variable_and_dtype(index, "index", ("int32", "int64"), "take")
    flat, ids = TM.flatten(x), TM.flatten(index)
    size = flat.shape[-1]
    if size is None or size < 0:
        raise ValueError("paddle.take: pe needs x's size known when the program is built")
    negative = TH.less_than(ids, TC.zeros_like(ids))
    if mode == "raise":
        ids = where(negative, TH.add(ids, TC.full_like(ids, size)), ids)
    elif mode == "wrap":
        ids = TH.mod(ids, TC.full_like(ids, size))
    else:
        ids = TH.clip(ids, 0, size - 1)
    return TM.reshape(TM.index_select(flat, ids), list(index.shape))


def _axis_mask(x, axis, index):
    """A bool tensor broadcastable to x: True at positions ``index`` (an int or a 1-D int tensor)
    along ``axis``."""
    size = x.shape[axis]
    if size is None or size < 0:
        raise ValueError(f"pe needs dim {axis} of x known when the program is built")
    ids = L.fill_constant([1], "int64", int(index)) if not isinstance(index, Variable) else L.cast(index, "int64")
    hits = TM.scatter(TC.zeros([size], "float32"), ids, TC.ones_like(L.cast(ids, "float32")))
    shape = [1] * len(x.shape)
    shape[axis] = size
    return TM.reshape(TH.greater_than(hits, TC.zeros_like(hits)), shape)


def _axis(axis, rank):
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise ValueError("The axis should be int, and in range [-rank(x), rank(x))")
    return axis % rank


def index_fill(x, index, axis, value, name=None):
    """x with the slices at ``index`` (a 1-D int tensor) along ``axis`` set to ``value`` (a number
    or a 0-D tensor)."""
    if not isinstance(index, Variable):
        raise ValueError("index must be Tensor")
    if isinstance(value, Variable) and len(value.shape) > 0:
        raise ValueError("value must be scalar or 0-D tensor")
    axis = _axis(axis, len(x.shape))
    fill = (
        TC.full_like(x, value)
        if not isinstance(value, Variable)
        else TM._broadcast(L.cast(value, x.dtype), list(x.shape))
    )
    return where_any(_axis_mask(x, axis, index), fill, x)


def index_fill_(x, index, axis, value, name=None):
    return _static_inplace("index_fill", index_fill)(x, index, axis, value, name=name)


def index_put(x, indices, value, accumulate=False, name=None):
    """x with ``value`` written (added, with ``accumulate``) at ``x[indices]``: ``indices`` a tuple of
    int tensors (broadcast to one shape, one per leading dim of x) or of bool masks (each standing for
    the coordinates of its True elements); ``value`` broadcasts to the shape of ``x[indices]``. Built
    from gather_nd and scatter_nd_add; where an index repeats, written values add up (Paddle leaves
    which one wins unspecified)."""
    if not isinstance(indices, (list, tuple)) or not indices:
        raise ValueError("paddle.index_put: indices must be a non-empty tuple of Tensors")
    if x.dtype == "bool":  # as int32 (a sum of Trues is True: numpy's += on bools)
        return L.cast(index_put(L.cast(x, "int32"), indices, L.cast(value, "int32"), accumulate), "bool")
    columns = []
    for index in indices:
        if index.dtype == "bool":
            coords = L.nonzero(index)
            columns += [TM.reshape(L.slice(coords, [1], [i], [i + 1]), [-1]) for i in range(len(index.shape))]
        else:
            check_variable_and_dtype(index, "indices", ("int32", "int64"), "index_put")
            columns.append(L.cast(index, "int64"))
    if len(columns) > len(x.shape):
        raise ValueError(f"paddle.index_put: {len(columns)} indices for x of rank {len(x.shape)}")
    shapes = [list(c.shape) for c in columns]
    if any(shape != shapes[0] for shape in shapes):
        if any(d < 0 for shape in shapes for d in shape):  # a mask's coordinates: sizes known at run time
            widest = max(columns, key=lambda c: len(c.shape))
            zeros = TC.zeros_like(widest)
            for c in columns:
                zeros = TH.add(zeros, TC.zeros_like(c))
            columns = [TH.add(zeros, c) for c in columns]
        else:
            common = list(np.broadcast_shapes(*shapes))
            columns = [TM._broadcast(c, common) for c in columns]
    index = TM.stack(columns, axis=-1)
    current = TM.gather_nd(x, index)
    updates = TH.add(TC.zeros_like(current), L.cast(value, x.dtype))
    if not accumulate:
        updates = TH.subtract(updates, current)
    return TM.scatter_nd_add(x, index, updates, name=name)


def index_put_(x, indices, value, accumulate=False, name=None):
    return _static_inplace("index_put", index_put)(x, indices, value, accumulate, name=name)


def select_scatter(x, values, axis, index, name=None):
    """x with its slice at ``index`` along ``axis`` replaced by ``values`` (of that slice's shape)."""
    x_shape = list(x.shape)
    if index < 0:
        index += x_shape[axis]
    if axis < 0:
        axis += len(x_shape)
    del x_shape[axis]
    if list(values.shape) != x_shape:
        raise RuntimeError(
            f"expected values to have a size equal to the slice of x. value size = "
            f"{list(values.shape)} slice size = {x_shape}"
        )
    spread = TM._broadcast(TM.unsqueeze(L.cast(values, x.dtype), [axis]), list(x.shape))
    return where_any(_axis_mask(x, axis, index), spread, x)


def combinations(x, r=2, with_replacement=False, name=None):
    """The r-length combinations of the 1-D x's elements, [k, r], in itertools' order (with
    repetition with ``with_replacement``)."""
    if len(x.shape) != 1:
        raise TypeError(f"Expect a 1-D vector, but got x shape {list(x.shape)}")
    if not isinstance(r, int) or r < 0:
        raise ValueError(f"Expect a non-negative int, but got r={r}")
    n = x.shape[0]
    if r == 0:
        return TC.full([0], 0, dtype=x.dtype)
    if (r > n and not with_replacement) or (n == 0 and with_replacement):
        return TC.full([0, r], 0, dtype=x.dtype)
    if r == 1:
        return TM.unsqueeze(x, [1])
    grids = TC.meshgrid([x] * r)
    ids = TC.meshgrid([TC.arange(n, dtype="int64")] * r)
    compare = TH.less_equal if with_replacement else TH.less_than
    mask = compare(ids[0], ids[1])
    for i in range(1, r - 1):
        mask = TH.logical_and(mask, compare(ids[i], ids[i + 1]))
    return TM.stack([masked_select(g, mask) for g in grids], 1)


def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of the 1-D x: column j is x ** (n - 1 - j) (x ** j with ``increasing``)."""
    check_variable_and_dtype(x, "x", ("float32", "float64", "int32", "int64"), "vander")
    if len(x.shape) != 1:
        raise ValueError(
            f"The input of x is expected to be a 1-D Tensor.But now the dims of Input(X) is {len(x.shape)}."
        )
    n = x.shape[0] if n is None else n
    if n < 0:
        raise ValueError("N must be non-negative.")
    if n == 0:
        return TC.full([x.shape[0], 0], 0, dtype=x.dtype)
    columns = [TC.ones_like(x)]
    for _ in range(n - 1):
        columns.append(TH.multiply(columns[-1], x))
    return TM.stack(columns if increasing else columns[::-1], 1)


@paddle_face
def _changes(x, axis):
    """A bool [n]: True where slice i along ``axis`` differs from slice i - 1 (and at i = 0)."""
    n = x.shape[axis]
    first = L.fill_constant([1], "int32", 1)
    if n == 1:
        return L.cast(first, "bool")
    later, earlier = (L.slice(x, [axis], [a], [b]) for a, b in ((1, n), (0, n - 1)))
    differs = TH.not_equal(later, earlier)
    others = [d for d in range(len(x.shape)) if d != axis]
    if others:
        differs = L.reduce_any(differs, dim=others)
    return L.cast(TM.concat([first, L.cast(differs, "int32")]), "bool")


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    """x without consecutive repeats (of elements of the flattened x, or of slices along ``axis``); with
    ``return_inverse`` the index in the result of each element (slice), with ``return_counts`` how many each kept
    one stood for, both of ``dtype``. Paddle 2.6's unique_consecutive op, with its checks; its outputs stop the
    gradient (Paddle marks them)."""
    check_variable_and_dtype(x, "input", ("float32", "float64", "int32", "int64"), "unique_consecutive")
    check_type(return_inverse, "return_inverse", bool, "unique_consecutive")
    check_type(return_counts, "return_counts", bool, "unique_consecutive")
    check_dtype(dtype, "dtype", ("int32", "int64"), "unique_consecutive")
    axis = [] if axis is None else [axis] if isinstance(axis, int) else list(axis)
    if axis:
        check_type(axis[0], "axis", int, "unique_consecutive")
    helper = LayerHelper("unique_consecutive", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    index, counts = (helper.create_variable_for_type_inference(convert_dtype(dtype), stop_gradient=True) for _ in "ic")
    attrs = {"dtype": convert_dtype(dtype), "return_inverse": return_inverse, "return_counts": return_counts}
    helper.append_op(
        "unique_consecutive", {"X": [x]}, {"Out": [out], "Index": [index], "Counts": [counts]}, {**attrs, "axis": axis}
    )
    outs = [out] + [index] * return_inverse + [counts] * return_counts
    return outs[0] if len(outs) == 1 else tuple(outs)
