"""Paddle 2.x's search and sort names (``paddle.argmax``, ``paddle.argsort``, ``paddle.sort``,
``paddle.topk``, ``paddle.nonzero``, ``paddle.masked_select``, ``paddle.where``) with 2.x's signatures,
built from pe's own layers (Paddle's python/paddle/tensor/search.py)."""

from .. import layers as L
from ..base.dtypes import convert_dtype
from ..base.dtypes import var_type
from ..base.errors import FluidUnsupported, PeError
from ..framework.variable import Variable
from ..layers.checks import check_dtype, check_type, check_variable_and_dtype
from ..layers.creation import assign_array_like
from ..layers.helper import LayerHelper, single as _single
from .alpha_keywords import written_to
from .device import get_default_dtype
from ..framework.program_release import paddle_face


def _arg(op_type, x, axis, keepdim, dtype, name=None):
    """Paddle 2.6's arg_max / arg_min op: over x flattened where ``axis`` is None (``flatten``: 0-D, or 1s in x's
    rank with ``keepdim``, in a Paddle 2.x program), Out of ``dtype`` (int32 or int64) by the op itself."""
    if isinstance(axis, Variable):
        raise FluidUnsupported(
            f"paddle.{op_type.replace('_', '')}(axis=Tensor '{axis.name}')", "pe takes axis as an int or None"
        )
    dtypes = ("float16", "float32", "float64", "int16", "int32", "int64", "uint8")
    check_variable_and_dtype(x, "x", dtypes, f"paddle.{op_type.replace('_', '')}")
    check_dtype(dtype, "dtype", ("int32", "int64"), op_type)  # Paddle's TypeError
    flatten = axis is None
    helper = LayerHelper(op_type, x=x, name=name)
    out = helper.create_variable_for_type_inference(convert_dtype(dtype), stop_gradient=True)
    attrs = {"axis": 0 if flatten else int(axis), "keepdims": bool(keepdim), "flatten": flatten}
    helper.append_op(op_type, {"X": [x]}, {"Out": [out]}, dict(attrs, dtype=var_type(dtype)))
    out.stop_gradient = True
    return out


def _alpha_arg(op_type, x, axis, keepdim, dtype, name, kwargs):
    """2.0-alpha's ``argmax(input, axis=None, dtype=None, out=None, keepdims=False)``, a call that names
    its input ``input``: axis None is the last axis (2.6's flattens x), dtype None int64."""
    unknown = set(kwargs) - {"input", "out", "keepdims"}
    if unknown:
        raise TypeError(f"{op_type}() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    if "input" in kwargs:
        if x is not None:
            raise TypeError(f"{op_type}() got both 'input' (Paddle 2.0-alpha's name) and 'x'")
        x, axis = kwargs["input"], -1 if axis is None else axis
    keepdim = kwargs.get("keepdims", keepdim)
    return written_to(_arg(op_type, x, axis, keepdim, "int64" if dtype is None else dtype, name), kwargs.get("out"))


def argmax(x=None, axis=None, keepdim=False, dtype="int64", name=None, **alpha):
    """The index of the largest value along ``axis`` (None: in the flattened x); ``alpha``: Paddle
    2.0-alpha's keywords (_alpha_arg)."""
    return _alpha_arg("arg_max", x, axis, keepdim, dtype, name, alpha)


def argmin(x=None, axis=None, keepdim=False, dtype="int64", name=None, **alpha):
    return _alpha_arg("arg_min", x, axis, keepdim, dtype, name, alpha)


def _sorted(x, axis, descending):
    """(x sorted along ``axis``, the int64 indices): the argsort op, its values differentiable (the
    gradient goes back to where each value came from; equal values keep their order)."""
    helper = LayerHelper("argsort", x=x)
    out = helper.create_variable_for_type_inference(x.dtype)
    ids = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(
        "argsort", {"X": [x]}, {"Out": [out], "Indices": [ids]}, {"axis": int(axis), "descending": bool(descending)}
    )
    return out, ids


def argsort(x, axis=-1, descending=False, name=None):
    """The int64 indices that sort x along ``axis``."""
    return _sorted(x, axis, descending)[1]


def sort(x=None, axis=-1, descending=False, name=None, *, input=None, out=None):  # noqa: A002
    """x sorted along ``axis``. Paddle 2.0-alpha's form (pe's keyword-only extras): ``input=`` in place
    of x gives (sorted, int64 indices), the sorted values written to ``out`` too where given."""
    if (x is None) == (input is None):
        raise TypeError("paddle.sort: give the tensor to sort as x (or, Paddle 2.0-alpha's form, input=)")
    values, ids = _sorted(x if input is None else input, axis, descending)
    if input is None:
        return values
    if out is not None:
        assign_array_like(values, out)
        values = out
    return values, ids


def topk(x, k, axis=None, largest=True, sorted=True, name=None):  # noqa: A002
    """(values, int64 indices) of the k largest (or smallest) along ``axis`` (None: the last), largest first
    (smallest first when not ``largest``); the values carry a gradient. Paddle 2.6's top_k_v2 op: equal values in
    its CPU kernel's order (std::partial_sort or nth_element), ``k`` an int or an int tensor read when the
    program runs (its K input); a 0-D x gives itself, 0-D."""
    axis = -1 if axis is None else int(axis)
    if x.shape:
        axis %= len(x.shape)
    attrs = {"axis": axis, "largest": bool(largest), "sorted": bool(sorted)}
    inputs = {"X": [x]}
    if isinstance(k, Variable):
        check_variable_and_dtype(k, "k", ("int32", "int64"), "topk")
        inputs["K"] = [k]
    else:
        attrs["k"] = int(k)
    helper = LayerHelper("top_k_v2", x=x, name=name)
    values = helper.create_variable_for_type_inference(x.dtype)
    indices = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("top_k_v2", inputs, {"Out": [values], "Indices": [indices]}, attrs)
    return values, indices


def nonzero(x, as_tuple=False):
    """The int64 coordinates [N, rank] of x's nonzero elements; with ``as_tuple``, one [N, 1]
    tensor per dim."""
    return L.nonzero(x, as_tuple)


def masked_select(x, mask, name=None):
    """The 1-D tensor of x's elements where ``mask`` (of x's shape) is True, in row-major order."""
    return L.gather_nd(x, L.where(mask), name=name)


def _check_broadcast(shapes):
    """Paddle's error where condition, x and y cannot broadcast to one shape (-1: known when the program runs)."""
    rank = max(len(s) for s in shapes)
    for dims in zip(*[[1] * (rank - len(s)) + list(s) for s in shapes]):
        if len({d for d in dims if d != 1 and d >= 0}) > 1:
            raise PeError(f"paddle.where: condition, x and y of shapes {[list(s) for s in shapes]} cannot broadcast")


def where(condition, x=None, y=None, name=None):
    """x where ``condition``, else y (the three broadcast to one shape; a number becomes a
    constant of the other's shape). With neither x nor y: ``nonzero(condition, as_tuple=True)``."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise PeError("paddle.where: give both x and y, or neither")
    check_type(condition, "condition", Variable, "where")
    for what, v in (("x", x), ("y", y)):  # Paddle's dtypes (a bool x or y is its TypeError)
        if isinstance(v, Variable):
            check_variable_and_dtype(v, what, ("float16", "uint16", "float32", "float64", "int32", "int64"), "where")
    return where_any(condition, x, y, name)


def where_any(condition, x, y, name=None):
    """``where`` without the check of x's and y's dtypes: the ``where`` op of any dtype, bool too (pe's
    functions that select with it, such as ``index_fill``, take what Paddle 2.6's take)."""
    like = x if isinstance(x, Variable) else y if isinstance(y, Variable) else condition
    dtype = like.dtype if like is not condition else get_default_dtype()
    x, y = (v if isinstance(v, Variable) else L.full_like(like, v, dtype=dtype) for v in (x, y))
    _check_broadcast([list(v.shape) for v in (condition, x, y)])
    if condition.dtype != "bool":
        condition = L.cast(condition, "bool")
    return _single("where", x, {"Condition": [condition], "X": [x], "Y": [y]}, {}, name=name)


@paddle_face
def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    """Where each of ``values`` would go in ``sorted_sequence`` (sorted along its last dim; a 1-D one
    serves every value, an N-D one the values of the same leading index) to keep it sorted: the number
    of elements below it (at most it, with ``right``), int64 (int32 with ``out_int32``)."""
    numbers = ("float32", "float64", "int32", "int64")
    check_variable_and_dtype(sorted_sequence, "SortedSequence", numbers, "paddle.searchsorted")
    check_variable_and_dtype(values, "Values", numbers, "paddle.searchsorted")
    if len(sorted_sequence.shape) == 1:
        v, s = L.unsqueeze(values, [len(values.shape)]), sorted_sequence
    else:
        v, s = L.unsqueeze(values, [len(values.shape)]), L.unsqueeze(sorted_sequence, [len(sorted_sequence.shape) - 1])
    if s.dtype != v.dtype:
        s = L.cast(s, v.dtype)
    below = (L.greater_equal if right else L.greater_than)(v, s)
    count = L.reduce_sum(L.cast(below, "int64"), dim=[-1])
    count.stop_gradient = True
    return L.cast(count, "int32") if out_int32 else count


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """The bucket of each of x's values among the boundaries of the 1-D ``sorted_sequence``
    (searchsorted of x in it)."""
    check_variable_and_dtype(
        sorted_sequence, "SortedSequence", ("float32", "float64", "int32", "int64"), "paddle.searchsorted"
    )
    if len(sorted_sequence.shape) != 1:
        raise ValueError(f"sorted_sequence tensor must be 1 dimension, but got dim {len(sorted_sequence.shape)}")
    return searchsorted(sorted_sequence, x, out_int32, right, name)
