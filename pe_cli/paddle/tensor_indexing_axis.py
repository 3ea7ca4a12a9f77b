"""Paddle 2.x's gathers and scatters by index tensors (``paddle.take_along_axis``, ``put_along_axis``,
``index_add``, ``diagonal_scatter``) with 2.6.2's signatures: the ops of the indexing_axis family
(ops/indexing_axis.py), the index and values broadcast first as Paddle's Python does."""

import numbers

from .. import layers as L
from ..base.errors import PeError
from ..framework.variable import Variable
from ..layers.checks import check_type, check_variable_and_dtype
from ..layers.helper import LayerHelper
from .tensor_manip import broadcast_to, no_axis_of_0d

__all__ = ["take_along_axis", "put_along_axis", "index_add", "diagonal_scatter"]

_VALUES = ("float16", "float32", "float64", "int32", "int64", "uint8")


def _axis(arr, axis, who):
    rank = len(arr.shape)
    if not -rank <= axis < rank:
        raise PeError(f"paddle.{who}: axis {axis} is out of range for a {rank}-D tensor")
    return axis % rank


def _broadcast_shape(arr, indices, axis):
    """arr's shape with the axis of indices', or None where indices are larger than arr off the axis
    (Paddle's infer_broadcast_shape)."""
    shape = list(arr.shape)
    shape[axis] = list(indices.shape)[axis]
    return None if any(a < i for a, i in zip(arr.shape, indices.shape)) else shape


def take_along_axis(arr, indices, axis, broadcast=True):
    """arr's values at ``indices`` along ``axis`` (numpy's take_along_axis); with ``broadcast``,
    indices and arr are first broadcast to each other off the axis."""
    if len(arr.shape) != len(indices.shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions!")
    axis = _axis(arr, axis, "take_along_axis")
    if broadcast:
        shape = _broadcast_shape(arr, indices, axis) or list(indices.shape)
        indices = broadcast_to(indices, shape)
        shape[axis] = arr.shape[axis]
        arr = broadcast_to(arr, shape)
    check_variable_and_dtype(arr, "x", _VALUES, "take_along_axis")
    check_variable_and_dtype(indices, "index", ("int32", "int64"), "take_along_axis")
    helper = LayerHelper("take_along_axis", x=arr)
    result = helper.create_variable_for_type_inference(arr.dtype)
    helper.append_op("take_along_axis", {"Input": [arr], "Index": [indices]}, {"Result": [result]}, {"Axis": axis})
    return result


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    """arr with ``values`` put at ``indices`` along ``axis``: ``reduce`` 'assign' (the last write wins),
    'add', 'mul'/'multiply', 'mean', 'amin' or 'amax' of the values a place gets, arr's own among them
    with ``include_self``. A number for ``values`` is taken as a constant of arr's dtype."""
    if len(arr.shape) != len(indices.shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions!")
    axis = _axis(arr, axis, "put_along_axis")
    if isinstance(values, numbers.Number):
        values = L.fill_constant([1] * len(arr.shape), arr.dtype, values)
    if broadcast:
        shape = _broadcast_shape(arr, indices, axis)
        if shape:
            indices = broadcast_to(indices, shape)
        values = broadcast_to(values, list(indices.shape))
    check_variable_and_dtype(arr, "x", _VALUES, "put_along_axis")
    check_variable_and_dtype(indices, "index", ("int32", "int64"), "put_along_axis")
    check_type(include_self, "include_self", bool, "put_along_axis")
    helper = LayerHelper("put_along_axis", x=arr)
    result = helper.create_variable_for_type_inference(arr.dtype)
    helper.append_op(
        "put_along_axis",
        {"Input": [arr], "Index": [indices], "Value": [values]},
        {"Result": [result]},
        {"Axis": axis, "Reduce": reduce, "Include_self": include_self},
    )
    return result


def index_add(x, index, axis, value, name=None):
    """x with ``value``'s slice i added to x's slice ``index[i]`` along ``axis``."""
    no_axis_of_0d(x, "index_add")
    check_variable_and_dtype(x, "x", _VALUES[:5], "paddle.tensor.manipulation.index_add")
    check_variable_and_dtype(index, "index", ("int32", "int64"), "paddle.tensor.manipulation.index_add")
    check_variable_and_dtype(value, "add_value", _VALUES[:5], "paddle.tensor.manipulation.index_add")
    helper = LayerHelper("index_add", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "index_add", {"X": [x], "Index": [index], "AddValue": [value]}, {"Out": [out]}, {"axis": int(axis)}
    )
    return out


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """x with its diagonal ``offset`` of dims (axis1, axis2) replaced by y (x's other dims, then the
    diagonal's length). y gets no gradient (as Paddle 2.6.2's fill_diagonal_tensor)."""
    check_type(x, "x", Variable, "diagonal_scatter")
    shape = list(x.shape)
    if len(shape) < 2:
        raise PeError(f"paddle.diagonal_scatter: x {shape} must have at least 2 dims")
    d1, d2 = axis1 % len(shape), axis2 % len(shape)
    length = min(shape[d1], shape[d1] + offset, shape[d2], shape[d2] - offset)
    want = [n for i, n in enumerate(shape) if i not in (d1, d2)] + [length]
    if tuple(want) != tuple(y.shape):
        raise PeError(f"paddle.diagonal_scatter: the y shape should be {want}, got {list(y.shape)}")
    if len(y.shape) == 1:
        y = L.reshape(y, [1, -1])
    helper = LayerHelper("fill_diagonal_tensor", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "fill_diagonal_tensor", {"X": [x], "Y": [y]}, {"Out": [out]}, {"offset": int(offset), "dim1": d1, "dim2": d2}
    )
    return out
