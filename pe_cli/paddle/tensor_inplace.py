"""Paddle 2.x's in-place tensor functions (``paddle.abs_``, ``paddle.cumsum_``, ``paddle.tril_``, ...)
in static mode. Paddle 2.6 builds them there as their out-of-place functions, with a warning that
no in-place operation happens (its ``inplace_apis_in_dygraph_only``); pe does the same: each name
returns the out-of-place function's new variable and ``x`` keeps its value."""

import functools
import warnings

from . import (
    tensor_create,
    tensor_cumulative,
    tensor_elementwise,
    tensor_indexing_axis,
    tensor_manip,
    tensor_math,
    tensor_special,
)

_MODULES = (
    tensor_math,
    tensor_manip,
    tensor_create,
    tensor_elementwise,
    tensor_special,
    tensor_cumulative,
    tensor_indexing_axis,
)


def _inplace(name):
    """paddle.``name``_: paddle.``name`` (of the first of _MODULES holding it) with the warning."""
    return _static_inplace(name, next(getattr(m, name) for m in _MODULES if hasattr(m, name)))


def _static_inplace(name, base):
    """``base`` (paddle.``name``) under the name ``name_``: the same signature, with Paddle's
    static-mode warning."""

    @functools.wraps(base)
    def inplace(*args, **kwargs):
        warnings.warn(
            f"In static graph mode, {name}_() is the same as {name}() and does not perform inplace operation.",
            stacklevel=2,
        )
        return base(*args, **kwargs)

    inplace.__name__ = inplace.__qualname__ = name + "_"
    return inplace


def logical_and_(x, y, name=None):
    """2.x's ``(x, y, name)`` (no ``out``)."""
    return _static_inplace("logical_and", tensor_math.logical_and)(x, y, name=name)


def logical_or_(x, y, name=None):
    return _static_inplace("logical_or", tensor_math.logical_or)(x, y, name=name)


def logical_xor_(x, y, name=None):
    return _static_inplace("logical_xor", tensor_math.logical_xor)(x, y, name=name)


def logical_not_(x, name=None):
    return _static_inplace("logical_not", tensor_math.logical_not)(x, name=name)


abs_ = _inplace("abs")
acos_ = _inplace("acos")
addmm_ = _inplace("addmm")
atan_ = _inplace("atan")
cast_ = _inplace("cast")
cos_ = _inplace("cos")
cumsum_ = _inplace("cumsum")
divide_ = _inplace("divide")
equal_ = _inplace("equal")
erf_ = _inplace("erf")
floor_divide_ = _inplace("floor_divide")
floor_mod_ = _inplace("floor_mod")
greater_equal_ = _inplace("greater_equal")
greater_than_ = _inplace("greater_than")
less_equal_ = _inplace("less_equal")
less_than_ = _inplace("less_than")
log_ = _inplace("log")
log10_ = _inplace("log10")
log2_ = _inplace("log2")
mod_ = _inplace("mod")
multiply_ = _inplace("multiply")
pow_ = _inplace("pow")
remainder_ = _inplace("remainder")
sin_ = _inplace("sin")
sinh_ = _inplace("sinh")
square_ = _inplace("square")
t_ = _inplace("t")
tan_ = _inplace("tan")
transpose_ = _inplace("transpose")
tril_ = _inplace("tril")
triu_ = _inplace("triu")
where_ = _inplace("where")
frac_ = _inplace("frac")
hypot_ = _inplace("hypot")
logit_ = _inplace("logit")
masked_fill_ = _inplace("masked_fill")
nan_to_num_ = _inplace("nan_to_num")
neg_ = _inplace("neg")
trunc_ = _inplace("trunc")
asin_ = _inplace("asin")
ceil_ = _inplace("ceil")
exp_ = _inplace("exp")
floor_ = _inplace("floor")
reciprocal_ = _inplace("reciprocal")
round_ = _inplace("round")
rsqrt_ = _inplace("rsqrt")
scale_ = _inplace("scale")
sqrt_ = _inplace("sqrt")
add_ = _inplace("add")
subtract_ = _inplace("subtract")
log1p_ = _inplace("log1p")
clip_ = _inplace("clip")
not_equal_ = _inplace("not_equal")
flatten_ = _inplace("flatten")
atanh_ = _inplace("atanh")
lerp_ = _inplace("lerp")
cosh_ = _inplace("cosh")
acosh_ = _inplace("acosh")
asinh_ = _inplace("asinh")
digamma_ = _inplace("digamma")
lgamma_ = _inplace("lgamma")
polygamma_ = _inplace("polygamma")
multigammaln_ = _inplace("multigammaln")
expm1_ = _inplace("expm1")
i0_ = _inplace("i0")
cumprod_ = _inplace("cumprod")
index_add_ = _inplace("index_add")

__all__ = [
    "abs_",
    "acos_",
    "acosh_",
    "add_",
    "addmm_",
    "asin_",
    "asinh_",
    "atan_",
    "atanh_",
    "cast_",
    "ceil_",
    "clip_",
    "cos_",
    "cosh_",
    "cumprod_",
    "cumsum_",
    "digamma_",
    "divide_",
    "equal_",
    "erf_",
    "exp_",
    "expm1_",
    "flatten_",
    "floor_",
    "floor_divide_",
    "floor_mod_",
    "frac_",
    "greater_equal_",
    "greater_than_",
    "hypot_",
    "i0_",
    "index_add_",
    "lerp_",
    "less_equal_",
    "less_than_",
    "lgamma_",
    "log10_",
    "log1p_",
    "log2_",
    "log_",
    "logit_",
    "masked_fill_",
    "mod_",
    "multigammaln_",
    "multiply_",
    "nan_to_num_",
    "neg_",
    "not_equal_",
    "polygamma_",
    "pow_",
    "reciprocal_",
    "remainder_",
    "round_",
    "rsqrt_",
    "scale_",
    "sin_",
    "sinh_",
    "sqrt_",
    "square_",
    "subtract_",
    "t_",
    "tan_",
    "transpose_",
    "tril_",
    "triu_",
    "trunc_",
    "where_",
    "logical_and_",
    "logical_or_",
    "logical_xor_",
    "logical_not_",
]
