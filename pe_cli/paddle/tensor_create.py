"""Paddle 2.x's top-level creation names (``paddle.full``, ``paddle.arange``,
``paddle.tril``, ...; the search names are tensor_search.py's, the random ones tensor_random.py's) with 2.x's
signatures and semantics, built from pe's own layers. A missing dtype is the default float dtype (float32
unless paddle.set_default_dtype changed it; int64 for indices and ``arange`` over ints)."""

import math
import numbers

import numpy as np

from .alpha_keywords import or_alpha, renamed
from .. import layers as L
from ..layers.manipulation import reshape_variable
from ..base.dtypes import convert_dtype
from ..base.errors import ArgumentValueError, PeError
from ..framework import static_mode
from ..fluid.dygraph import base as dygraph_base
from ..framework.variable import Variable
from ..layers.creation import assign_array_like, evenly_spaced
from ..layers.checks import check_dtype, check_type, check_variable_and_dtype
from ..layers.helper import LayerHelper
from ..layers.matrix import diagonal_coords
from .device import get_default_dtype
from .tensor_logic import isnan
from .tensor_manip import _dims, _known, _zero_d_axes, broadcast_to, flatten, gather
from .tensor_search import (
    _sorted,
    argmax,
    argmin,
    argsort,
    bucketize,
    masked_select,
    nonzero,  # noqa: F401
    searchsorted,
    sort,
    topk,
    where,
)
from ..framework.program_release import paddle_face

__all__ = [
    "arange",
    "full",
    "full_like",
    "zeros",
    "zeros_like",
    "ones",
    "ones_like",
    "empty",
    "empty_like",
    "eye",
    "linspace",
    "meshgrid",
    "diag",
    "assign",
    "argmax",
    "argmin",
    "argsort",
    "sort",
    "topk",
    "nonzero",
    "masked_select",
    "unique",
    "median",
    "trace",
    "where",
    "tril",
    "triu",
    "logspace",
    "tril_indices",
    "triu_indices",
    "to_tensor",
    "diag_embed",
    "searchsorted",
    "bucketize",
]

diag_embed = L.diag_embed


def _dtype(dtype, default=None):
    """``dtype``, or ``default``, or the default float dtype (paddle.set_default_dtype)."""
    return convert_dtype(dtype if dtype is not None else default or get_default_dtype())


def _shape(shape):
    """A shape as fill_constant takes it: an int Tensor, or a list of ints and one-value int Tensors
    (their values read at run time, Paddle 2.6's ShapeTensor / ShapeTensorList)."""
    if isinstance(shape, Variable):
        return shape
    return [d if isinstance(d, Variable) else int(d) for d in (shape if isinstance(shape, (list, tuple)) else [shape])]


@renamed(out=True, device=True)
def full(shape, fill_value, dtype=None, name=None):
    return L.fill_constant(_shape(shape), _dtype(dtype), fill_value, zero_dim=True)


@renamed(out=True, device=True)
def zeros(shape, dtype=None, name=None):
    return full(shape, 0.0, dtype)


@renamed(out=True, device=True)
def ones(shape, dtype=None, name=None):
    return full(shape, 1.0, dtype)


def empty(shape, dtype=None, name=None):
    """A tensor of ``shape`` whose values are not to be read (pe fills it with zeros)."""
    return full(shape, 0.0, dtype)


_DTYPES_2X = ("bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8")


@or_alpha(L.full_like, {"input", "out", "device", "stop_gradient"})  # 2.0-alpha's full_like: its dtypes
def full_like(x, fill_value, dtype=None, name=None):
    """``fill_value`` shaped like x, of ``dtype`` (None: x's)."""
    return L.full_like(x, fill_value, dtype=dtype, name=name, dtypes=_DTYPES_2X)


@renamed(out=True, device=True, input="x")
def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0.0, dtype)


@renamed(out=True, device=True, input="x")
def ones_like(x, dtype=None, name=None):
    return full_like(x, 1.0, dtype)


def empty_like(x, dtype=None, name=None):
    """Like x; its values are not to be read (pe fills it with zeros)."""
    return full_like(x, 0.0, dtype)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """[start, start + step, ...) stopping before ``end`` (only ``start`` given: [0, start))."""
    if end is None:
        start, end = 0, start
    ints = all(
        convert_dtype(v.dtype).startswith(("int", "uint"))
        if isinstance(v, Variable)
        else isinstance(v, numbers.Integral)
        for v in (start, end, step)
    )
    dtype = _dtype(dtype, "int64" if ints else None)
    # (a Tensor bound of another dtype is cast to it, as Paddle 2.6's: arange(paddle.shape(x)[1]), int32)
    start, end, step = (
        L.cast(v, dtype) if isinstance(v, Variable) and convert_dtype(v.dtype) != dtype else v
        for v in (start, end, step)
    )
    return L.range(start, end, step, dtype)


def eye(num_rows, num_columns=None, dtype=None, name=None):
    return L.eye(num_rows, num_columns, dtype=_dtype(dtype))


def linspace(start, stop, num, dtype=None, name=None):
    """``num`` evenly spaced values from start to stop, both included: Paddle 2.6's linspace op (its ``dtype``
    attribute and formula). start, stop: numbers (constants of ``dtype``) or [1] Tensors; num: an int or an
    int32 [1] Tensor, read when the program runs."""
    dtype = _dtype(dtype)
    check_dtype(dtype, "dtype", ("float32", "float64", "int32", "int64"), "linspace")
    ends = []
    for what, v in (("start", start), ("stop", stop)):
        if isinstance(v, Variable):
            check_variable_and_dtype(v, what, ("float32", "float64", "int32", "int64"), "linspace")
            if (convert_dtype(v.dtype) == "float64" and dtype in ("float32", "int32")) or (
                convert_dtype(v.dtype) == "int64" and dtype == "int32"
            ):
                raise ValueError(
                    f"linspace: {what} is {convert_dtype(v.dtype)} but dtype is {dtype}, which may overflow"
                )
        ends.append(v if isinstance(v, Variable) else L.fill_constant([1], dtype, v, force_cpu=True))
    if isinstance(num, Variable):
        check_variable_and_dtype(num, "num", ("int32",), "linspace")
    elif not isinstance(num, numbers.Integral) or num < 1:
        raise ArgumentValueError(f"linspace: num={num!r} must be an int >= 1")
    count = num if isinstance(num, Variable) else L.fill_constant([1], "int32", int(num), force_cpu=True)
    helper = LayerHelper("linspace", name=name)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(
        "linspace", {"Start": [ends[0]], "Stop": [ends[1]], "Num": [count]}, {"Out": [out]}, {"dtype": dtype}
    )
    if not isinstance(num, Variable):
        out.desc.set_shape([int(num)])
    return out


def meshgrid(*args, **kwargs):
    """For k 1-D tensors of sizes n1..nk: k tensors [n1, ..., nk], the i-th varying along dim i."""
    return L.meshgrid(list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args))


def diag(x, offset=0, padding_value=0, name=None):
    """1-D x: a square matrix with x on diagonal ``offset``, ``padding_value`` elsewhere; 2-D x: its diagonal
    ``offset`` as a 1-D tensor. Paddle 2.6's diag_v2 op, with its checks; no gradient flows back through it
    (Paddle sets its output's stop_gradient)."""
    check_type(x, "x", (Variable,), "diag_v2")
    check_dtype(x.dtype, "x", ("float16", "float32", "float64", "int32", "int64"), "diag_v2")
    check_type(offset, "offset", (int,), "diag_v2")
    check_type(padding_value, "padding_value", (int, float), "diag_v2")
    if len(x.shape) not in (1, 2):
        raise ValueError(f"The dimension of input x must be either 1 or 2, but received {len(x.shape)}")
    helper = LayerHelper("diag_v2", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("diag_v2", {"X": [x]}, {"Out": [out]}, {"offset": offset, "padding_value": padding_value})
    return out


def assign(x, output=None):
    return assign_array_like(x, output)


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Paddle 2.x's to_tensor in static mode: a Variable holding ``data`` (an assign op); python
    floats take the default dtype and python ints int64, numpy arrays keep theirs; a Variable is
    cast to ``dtype``; a list mixing Variables and numbers is stacked. Called by a program that never
    entered static mode (``paddle.enable_static()``), it would make an eager tensor in Paddle: refused
    in one line."""
    static_mode.check_eager_call("paddle.to_tensor")
    if isinstance(data, Variable):
        out = data if dtype is None or convert_dtype(dtype) == convert_dtype(data.dtype) else L.cast(data, dtype)
        out.stop_gradient = stop_gradient
        return out
    if isinstance(data, np.number):
        data = np.array(data)
    if not isinstance(data, np.ndarray):
        if isinstance(data, str) or not (np.isscalar(data) or isinstance(data, (list, tuple))):
            raise TypeError(f"paddle.to_tensor: cannot make a tensor of {type(data).__name__}")
        try:
            mixed = np.array(data).dtype == object
        except (TypeError, ValueError):
            mixed = True
        if mixed:  # Variables among the numbers: stacked
            out = L.stack([to_tensor(d, dtype, place, stop_gradient) for d in data])
            out.stop_gradient = stop_gradient
            return out
        data = np.array(data)
        if data.dtype.kind == "f":
            data = data.astype(get_default_dtype())
        elif data.dtype == np.int32:
            data = data.astype("int64")
    target = convert_dtype(dtype) if dtype is not None else str(data.dtype)
    eager = dygraph_base.enabled()  # (an eager tensor keeps float64 values; a static program's assign rounds them)
    out = assign_array_like(data.astype("int32") if data.dtype == np.int16 else data, keep_float64=eager)
    out = out if convert_dtype(out.dtype) == target else L.cast(out, target)
    out.stop_gradient = stop_gradient
    return out


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    """x's distinct values sorted ascending (x flattened, or its distinct slices along ``axis``); with
    ``return_index`` where each first occurs, ``return_inverse`` each element's place among them,
    ``return_counts`` how often each occurs: Paddle 2.6's unique op (is_sorted), indices of ``dtype``."""
    check_variable_and_dtype(x, "input", ("float16", "float32", "float64", "int32", "int64"), "unique")
    check_dtype(convert_dtype(dtype), "dtype", ("int32", "int64"), "unique")
    for what, flag in (
        ("return_index", return_index),
        ("return_inverse", return_inverse),
        ("return_counts", return_counts),
    ):
        check_type(flag, what, bool, "unique")
    axis = [] if axis is None else [axis] if isinstance(axis, int) else list(axis)
    helper = LayerHelper("unique", name=name)
    index_dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    extra = {
        slot: helper.create_variable_for_type_inference(index_dtype, stop_gradient=True)
        for slot in ("Indices", "Index", "Counts")
    }
    attrs = {"dtype": index_dtype, "return_index": return_index, "return_inverse": return_inverse}
    attrs.update(return_counts=return_counts, axis=axis, is_sorted=True)
    helper.append_op("unique", {"X": [x]}, {"Out": [out], **{k: [v] for k, v in extra.items()}}, attrs)
    outs = [out] + [
        extra[s]
        for s, asked in (("Indices", return_index), ("Index", return_inverse), ("Counts", return_counts))
        if asked
    ]
    return outs[0] if len(outs) == 1 else tuple(outs)


@paddle_face
def median(x, axis=None, keepdim=False, name=None):
    """The middle value along ``axis`` (None: of all x), the mean of the two middle ones when the count is even:
    Paddle 2.6's ops (top_k_v2 of the smallest n // 2 + 1, whose order of equal values gives the gradient's
    places; float32 unless x is float64) plus the sum of x where x is NaN, so a line holding NaN, +inf or -inf
    gives NaN (0 * inf), as Paddle 2.6's does."""
    rank = len(x.shape)
    _zero_d_axes(x, axis, "median")
    if axis is None or not rank:  # (a 0-D x's axis 0 or -1: its one value, 0-D, Paddle 2.6's)
        mid = median(flatten(x), 0, keepdim=True)
        return reshape_variable(mid, [1] * rank if keepdim and rank else [])
    axis = _dims(x, axis)[0]
    n = _known(x, "median", [axis])[axis]
    ordered = topk(x, n // 2 + 1, axis=axis, largest=False)[0]
    dtype = "float64" if convert_dtype(x.dtype) == "float64" else "float32"
    mid = L.slice(ordered, [axis], [n // 2], [n // 2 + 1])
    if n % 2:
        mid = L.cast(mid, dtype)
    else:
        mid = L.scale(L.cast(L.elementwise_add(L.slice(ordered, [axis], [n // 2 - 1], [n // 2]), mid), dtype), 0.5)
    same = x if convert_dtype(x.dtype) == dtype else L.cast(x, dtype)  # (Paddle's `*` casts the int x)
    nan = L.reduce_sum(L.elementwise_mul(L.cast(isnan(x), dtype), same), dim=axis, keep_dim=True)
    mid = L.elementwise_add(mid, nan)
    return mid if keepdim else L.squeeze(mid, [axis])


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """The sums of the diagonal ``offset`` of the 2-D planes (axis1, axis2) of x (the smaller dim taken first,
    as Paddle's trace op takes them)."""
    return L.trace(x, offset, axis1, axis2, name=name)


def _triangle(op, x, diagonal, lower, name):
    valid_diagonal = isinstance(diagonal, numbers.Integral) and not isinstance(diagonal, bool)
    if valid_diagonal and isinstance(x, Variable) and len(x.shape) < 2:  # 2.x names the input x
        raise ArgumentValueError(f"{op}: x shape in {op} must be at least 2-D, got {list(x.shape)}")
    return (L.tril if lower else L.triu)(x, diagonal, name=name)


@renamed(input="x")
def tril(x, diagonal=0, name=None):
    """x's lower triangle (col - row <= diagonal) in its last two dims, zeros elsewhere."""
    return _triangle("tril", x, diagonal, True, name)


@renamed(input="x")
def triu(x, diagonal=0, name=None):
    """x's upper triangle (col - row >= diagonal) in its last two dims, zeros elsewhere."""
    return _triangle("triu", x, diagonal, False, name)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``num`` values base ** t, t evenly spaced from start to stop (both included; numbers only)."""
    for what, value in (("start", start), ("stop", stop), ("num", num), ("base", base)):
        if isinstance(value, Variable):
            raise PeError(f"paddle.logspace: pe takes a number for {what} (not a Tensor)")
    dtype = _dtype(dtype)
    if dtype in ("float16", "float32", "float64"):
        return L.exp(L.scale(evenly_spaced(start, stop, num, dtype), math.log(float(base))))
    return assign_array_like(np.logspace(float(start), float(stop), int(num), base=float(base)).astype(dtype))


def _indices(fn, row, col, offset, dtype):
    """Paddle 2.6's checks (a TypeError for a row, col or offset that is no int: 4.0 too), col None the row's."""
    if not isinstance(row, int) or row < 0:
        raise TypeError(f"paddle.{fn.__name__}: row should be a non-negative int, got {row!r}")
    if col is not None and (not isinstance(col, int) or col < 0):
        raise TypeError(f"paddle.{fn.__name__}: col should be a non-negative int, got {col!r}")
    if not isinstance(offset, int):
        raise TypeError(f"paddle.{fn.__name__}: offset should be an int, got {offset!r}")
    if dtype not in ("int32", "int64"):
        raise TypeError(f"paddle.{fn.__name__}: dtype must be int32 or int64, got {dtype!r}")
    return assign_array_like(np.stack(fn(row, offset, row if col is None else col)).astype(dtype))


def tril_indices(row, col, offset=0, dtype="int64"):
    """[2, n]: the (row, column) indices of the lower triangle (diagonal ``offset``) of a row x col matrix (col
    None: row's, as Paddle 2.6's)."""
    return _indices(np.tril_indices, row, col, offset, convert_dtype(dtype))


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """[2, n]: the (row, column) indices of the upper triangle (diagonal ``offset``; col defaults to row)."""
    return _indices(np.triu_indices, row, col, offset, convert_dtype(dtype))
