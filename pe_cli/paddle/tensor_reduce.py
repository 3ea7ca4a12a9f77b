"""Paddle 2.x's reductions beyond tensor_math's: ``all``/``any``, ``amax``/``amin`` (Paddle's reduce_amax / reduce_amin:
the extreme value; its gradient is split evenly among the values that reach it, where max/min's goes to each),
``count_nonzero``, ``nansum`` and ``nanmean`` (NaNs left out)."""

from .. import layers as L
from ..base.dtypes import convert_dtype
from ..framework.variable import Variable
from ..layers.checks import FLOATS, check_variable_and_dtype
from ..layers.helper import LayerHelper
from . import tensor_create as TC
from . import tensor_math as TM
from .tensor_inplace import _static_inplace
from ..framework.program_release import paddle_face

__all__ = ["all", "any", "amax", "amin", "count_nonzero", "nansum", "nanmean", "renorm", "renorm_"]


def _axis_value(axis):
    """``axis`` of a reduction to which Paddle 2.6 gives no Tensor axis (amax, amin, all, any): its TypeError."""
    if isinstance(axis, Variable):
        raise TypeError(f"The type of axis must be int, list or tuple, but received {type(axis)}")
    return axis


all = TM._reduction(L.reduce_all, "logical and", _axis_value)  # noqa: A001 -- Paddle's names
any = TM._reduction(L.reduce_any, "logical or", _axis_value)  # noqa: A001


def _axes(axis):
    if isinstance(axis, (list, tuple)):
        return list(axis) or None
    return None if axis is None else axis if isinstance(axis, Variable) else [axis]


def _extreme(op_type):
    """Paddle 2.6's amax / amin: its reduce_amax / reduce_amin op (the extreme over ``axis``, None: all; its gradient
    shared evenly by the values equal to it)."""

    @paddle_face
    def extreme(x, axis=None, keepdim=False, name=None):
        check_variable_and_dtype(x, "x", ("float32", "float64", "int32", "int64"), op_type[7:])
        axis = _axis_value(axis)
        dims = [] if axis is None else [axis] if isinstance(axis, int) else list(axis)
        attrs = {"dim": dims, "keep_dim": keepdim, "reduce_all": not dims or len(dims) == len(x.shape)}
        helper = LayerHelper(op_type, x=x, name=name)
        out = helper.create_variable_for_type_inference(x.dtype)
        helper.append_op(op_type, {"X": [x]}, {"Out": [out]}, attrs)
        return out

    extreme.__name__ = op_type[7:]
    return extreme


amax, amin = _extreme("reduce_amax"), _extreme("reduce_amin")


@paddle_face
def count_nonzero(x, axis=None, keepdim=False, name=None):
    """The number of non-zero values over ``axis`` (int64)."""
    nonzero = L.cast(L.not_equal(x, TC.zeros_like(x)), "int64")
    return L.reduce_sum(nonzero, dim=_axes(axis), keep_dim=keepdim, name=name)


def _without_nan(x):
    return TC.where(TM.isnan(x), TC.zeros_like(x), x)


@paddle_face
def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """The sum over ``axis`` with NaNs counted as 0 (cast to ``dtype`` first when given)."""
    if dtype is not None and convert_dtype(dtype) != convert_dtype(x.dtype):
        x = L.cast(x, dtype)
    return L.reduce_sum(_without_nan(x), dim=_axes(axis), keep_dim=keepdim, name=name)


@paddle_face
def nanmean(x, axis=None, keepdim=False, name=None):
    """The mean over ``axis`` of the values that are not NaN (NaN where all are); x is a float tensor."""
    check_variable_and_dtype(x, "x/input", FLOATS, "nanmean")
    count = L.reduce_sum(L.cast(L.logical_not(TM.isnan(x)), x.dtype), dim=_axes(axis), keep_dim=keepdim)
    return TM.divide(nansum(x, axis, keepdim=keepdim), count, name=name)


@paddle_face
def renorm(x, p, axis, max_norm):
    """x with each slice along ``axis`` whose p-norm exceeds ``max_norm`` scaled down to it (by
    max_norm / (norm + 1e-7), as Paddle's renorm kernel); the gradient is the derivative of that."""
    rank = len(x.shape)
    if not axis < rank:
        raise ValueError(f"the axis:{axis} should be less then the shape's size {rank}:{list(x.shape)}")
    if not axis >= -rank:
        raise ValueError(f"the axis:{axis} should not be less than -1 * length of input_shape:{-rank}")
    axis %= rank
    check_variable_and_dtype(x, "x", ("float32", "float64"), "renorm")
    others = [d for d in range(rank) if d != axis]
    norm = L.pow(L.reduce_sum(L.pow(TM.abs(x), factor=float(p)), dim=others, keep_dim=True), factor=1.0 / p)
    over = TM.greater_than(norm, TC.full_like(norm, max_norm))
    scale = TC.where(over, TM.divide(TC.full_like(norm, max_norm), L.scale(norm, bias=1e-7)), TC.ones_like(norm))
    return TM.multiply(x, scale)


def renorm_(x, p, axis, max_norm):
    return _static_inplace("renorm", renorm)(x, p, axis, max_norm)
