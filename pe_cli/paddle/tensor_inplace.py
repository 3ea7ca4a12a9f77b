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
_BASES = (
    "abs acos addmm atan cast cos cumsum divide equal erf floor_divide floor_mod greater_equal greater_than "
    "less_equal less_than log log10 log2 mod multiply pow remainder sin sinh square t tan transpose tril triu "
    "where frac hypot logit masked_fill nan_to_num neg trunc asin ceil exp floor reciprocal round rsqrt scale "
    "sqrt add subtract log1p clip not_equal flatten atanh lerp cosh acosh asinh digamma lgamma polygamma multigammaln "
    "expm1 i0 cumprod index_add"
).split()


def _base(name):
    return next(getattr(m, name) for m in _MODULES if hasattr(m, name))


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


_NAMES = {name + "_": _static_inplace(name, _base(name)) for name in _BASES}
globals().update(_NAMES)
__all__ = sorted(_NAMES) + ["logical_and_", "logical_or_", "logical_xor_", "logical_not_"]
