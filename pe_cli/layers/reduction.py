"""Reductions with Fluid 1.x signatures: mean (of all elements), reduce_sum/mean/max/min/prod,
reduce_all/any, cumsum, logsumexp, dist (the p-norm of a difference, the dist op) and allclose (the
allclose op)."""

__all__ = [
    "cumsum",
    "mean",
    "reduce_sum",
    "reduce_mean",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_all",
    "reduce_any",
    "logsumexp",
    "dist",
    "allclose",
]
import numbers

import numpy as np

from ..base.errors import ArgumentTypeError
from ..framework.program_release import fluid_face
from ..framework.variable import Variable
from .activation import exp, log
from .checks import check_type, check_variable_and_dtype, fluid_checks, given, optional
from .creation import assign
from .elementwise import elementwise_add, elementwise_sub
from .helper import LayerHelper, _as_list, single
from .manipulation import reshape, squeeze


# The dtypes Fluid 1.8's reduction layers take (a TypeError for another); the others check none
_DTYPES = {
    "reduce_sum": ("float32", "float64", "int32", "int64"),
    "reduce_mean": ("float32", "float64", "int32", "int64"),
    "reduce_all": ("bool",),
    "reduce_any": ("bool",),
}


def _reduce(op_type):
    @fluid_face
    def layer(input, dim=None, keep_dim=False, name=None):
        if op_type in _DTYPES:
            check_variable_and_dtype(input, "input", _DTYPES[op_type], op_type)
        if isinstance(dim, Variable):  # the dims, read when the op runs (AxisTensor: ops/reduction.py)
            attrs = {"dim": dim, "keep_dim": keep_dim, "reduce_all": False}
            return single(op_type, input, {"X": [input]}, attrs, name=name)
        dims = [] if dim is None else _as_list(dim)
        if any(isinstance(d, Variable) for d in dims):  # one dim per tensor or int (AxisTensorList)
            dims = [d if isinstance(d, Variable) else assign(np.array([d], "int64")) for d in dims]
            attrs = {"dim": [0] * len(dims), "keep_dim": keep_dim, "reduce_all": False}
            return single(op_type, input, {"X": [input], "AxisTensorList": dims}, attrs, name=name)
        reduce_all = not dims or len(dims) == len(input.shape or ())
        attrs = {"dim": dims or [0], "keep_dim": keep_dim, "reduce_all": reduce_all}
        return single(op_type, input, {"X": [input]}, attrs, name=name)

    layer.__name__ = layer.__qualname__ = op_type
    layer.__doc__ = (
        f"Appends '{op_type}' over the dims ``dim`` (an int or a list; None: all dims, "
        f"giving shape [1] unless keep_dim; an int tensor, or a list holding some, gives them when the op runs)."
    )
    return layer


reduce_sum = _reduce("reduce_sum")
reduce_mean = _reduce("reduce_mean")
reduce_max = _reduce("reduce_max")
reduce_min = _reduce("reduce_min")


def cumsum(x, axis=None, exclusive=None, reverse=None):
    """The running sum of ``x`` along ``axis`` (None: -1, the last dim); ``exclusive`` leaves each
    element out of its own sum, ``reverse`` sums from the end."""
    attrs = {"axis": -1 if axis is None else axis, "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return single("cumsum", x, {"X": [x]}, attrs)


reduce_prod = _reduce("reduce_prod")
reduce_all = _reduce("reduce_all")
reduce_any = _reduce("reduce_any")


@fluid_face
def mean(x, name=None):
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "mean")
    helper = LayerHelper("mean", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("mean", {"X": [x]}, {"Out": [out]})
    return out


def _dims(x, dim):
    return list(range(len(x.shape))) if dim is None or dim == [] else sorted({d % len(x.shape) for d in _as_list(dim)})


@fluid_checks("logsumexp", x=given(("float32", "float64")), out=optional(Variable))
def logsumexp(x, dim=None, keepdim=False, out=None, name=None):
    """log(sum(exp(x))) over ``dim`` (an int or a list; None: all of x, shape [1] unless keepdim),
    computed shifted by the max so that it neither overflows nor underflows."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "logsumexp")
    dims = _dims(x, dim)
    top = reduce_max(x, dim=dims, keep_dim=True)
    top.stop_gradient = True
    result = elementwise_add(log(reduce_sum(exp(elementwise_sub(x, top)), dim=dims, keep_dim=True)), top)
    if not keepdim:
        result = reshape(result, [1]) if len(dims) == len(x.shape) else squeeze(result, dims)
    return result if out is None else assign(result, out)


def dist(x, y, p=2):
    """The p-norm of x - y (broadcast) over all of it, shape [1] (Fluid 1.8's dist op): p = 0 counts the
    nonzeros, inf / -inf is the largest / smallest |x - y|, another p (sum |x - y|^p)^(1/p)."""
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, ("float32", "float64"), "dist")
    if not isinstance(p, numbers.Real) or isinstance(p, bool):
        raise ArgumentTypeError(f"dist: p must be a number, got {type(p).__name__}")
    return single("dist", x, {"X": [x], "Y": [y]}, {"p": float(p)})


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """A bool [1] (Fluid 1.8's allclose op): |input - other| <= atol + rtol * |other| everywhere (NaN equal to
    NaN at the same places when ``equal_nan``)."""
    for what, v in (("input", input), ("other", other)):
        check_variable_and_dtype(v, what, ("float32", "float64"), "allclose")
    for what, v in (("rtol", rtol), ("atol", atol)):
        check_type(v, what, float, "allclose")
    check_type(equal_nan, "equal_nan", bool, "allclose")
    return single(
        "allclose",
        input,
        {"Input": [input], "Other": [other]},
        {"rtol": rtol, "atol": atol, "equal_nan": equal_nan},
        name=name,
        dtype="bool",
    )
