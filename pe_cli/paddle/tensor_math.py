"""Paddle 2.x's top-level math names (``paddle.add``, ``paddle.sum``, ``paddle.matmul``, ...) with
2.x's signatures and semantics, each built from pe's own layers (one op, or a few composed exactly):
elementwise binaries broadcast as numpy does, reductions take ``axis`` (None: all) and ``keepdim``,
``matmul`` is matmul_v2. Scalars where 2.x takes a Tensor become one-element constants. The products
are tensor_products.py's, the value tests and logical operators tensor_logic.py's, offered here."""

import builtins
import math
import numbers

import numpy as np

from .. import layers as L
from ..base.dtypes import convert_dtype
from ..base.errors import ArgumentValueError, PeError
from ..framework.variable import Variable
from ..layers.checks import check_variable_and_dtype
from ..layers.logic import PADDLE2_COMPARABLE, append_compare
from ..layers.helper import single as _single
from .alpha_keywords import renamed, written_to
from .tensor_norm import norm  # noqa: F401 (__all__)
from .tensor_products import addmm, bmm, cross, dot, kron, matmul, mm, mul, mv, t  # noqa: F401 (__all__)
from .tensor_logic import allclose, equal_all, isfinite, isinf, isnan, logical_and, logical_not, logical_or, logical_xor  # noqa: F401
from ..framework.program_release import paddle_face

__all__ = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "mod",
    "remainder",
    "floor_mod",
    "maximum",
    "minimum",
    "pow",
    "add_n",
    "elementwise_sum",
    "div",
    "mul",
    "addmm",
    "matmul",
    "mm",
    "bmm",
    "mv",
    "dot",
    "t",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "std",
    "var",
    "logsumexp",
    "norm",
    "dist",
    "allclose",
    "equal_all",
    "isnan",
    "isinf",
    "isfinite",
    "tan",
    "log2",
    "log10",
    "log1p",
    "cross",
    "kron",
    "abs",
    "acos",
    "asin",
    "atan",
    "ceil",
    "cos",
    "cosh",
    "erf",
    "exp",
    "floor",
    "log",
    "reciprocal",
    "round",
    "rsqrt",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "tanh",
    "tanh_",
    "stanh",
    "scale",
    "clip",
    "clamp",
    "increment",
    "equal",
    "not_equal",
    "less_than",
    "less_equal",
    "greater_than",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "cumsum",
]


def _var(value, like):
    """``value`` as a Variable: itself, or a one-element constant of ``like``'s dtype."""
    if isinstance(value, Variable):
        return value
    if isinstance(value, numbers.Number):
        return L.fill_constant([1], like.dtype, value)
    raise PeError(f"expected a Tensor or a number, got {type(value).__name__}")


def _binary(op_type, doc):
    def fn(x, y, name=None, *, out=None):
        return written_to(_single(op_type, x, {"X": [x], "Y": [_var(y, x)]}, {"axis": -1}, name=name), out)

    fn.__doc__ = f"{doc}, elementwise; x and y broadcast as in numpy. ``out``: see written_to."
    return fn


def add(x, y, name=None, *, alpha=1, out=None):
    """x + y elementwise; x and y broadcast as in numpy. ``alpha`` (Paddle 2.0-alpha's, pe's
    keyword-only extra): x + alpha * y; ``out``: see written_to."""
    y = _var(y, x)
    if alpha != 1:
        y = L.scale(y, scale=float(alpha))
    return written_to(_single("elementwise_add", x, {"X": [x], "Y": [y]}, {"axis": -1}, name=name), out)


subtract = _binary("elementwise_sub", "x - y")
multiply = _binary("elementwise_mul", "x * y")
divide = _binary("elementwise_div", "x / y")
floor_divide = _binary("elementwise_floordiv", "x // y, floored as Python's (ints, and floats in a Paddle 2.x program)")


def mod(x, y, name=None, *, out=None):
    """x % y elementwise, the sign of y's (Python's; they broadcast): Paddle 2.x's elementwise_mod in a
    program that follows Paddle 2.6. In a Fluid 1.8 program the op's integer result has x's sign, so
    there it is taken twice: ((x % y) + y) % y. ``out``: see written_to."""
    y = _var(y, x)
    result = _single("elementwise_mod", x, {"X": [x], "Y": [y]}, {"axis": -1})
    if str(x.dtype).startswith(("int", "uint")) and not x.block.program._follows_paddle2:
        shifted = _single("elementwise_add", result, {"X": [result], "Y": [y]}, {"axis": -1})
        result = _single("elementwise_mod", shifted, {"X": [shifted], "Y": [y]}, {"axis": -1}, name=name)
    return written_to(result, out)


remainder = floor_mod = mod
maximum = _binary("elementwise_max", "max(x, y)")
minimum = _binary("elementwise_min", "min(x, y)")


def pow(x, y, name=None, *, out=None):  # noqa: A001 -- Paddle's name
    """x ** y: y a number (the pow op) or a Tensor (elementwise_pow, broadcast). ``out``: see written_to."""
    if isinstance(y, Variable):
        return written_to(_single("elementwise_pow", x, {"X": [x], "Y": [y]}, {"axis": -1}, name=name), out)
    return written_to(L.pow(x, factor=float(y), name=name), out)


def add_n(inputs, name=None):
    """The sum of a Tensor or a list of Tensors of one shape."""
    return L.sums(inputs if isinstance(inputs, (list, tuple)) else [inputs])


# Paddle 2.0-alpha's names that 2.x renamed: paddle.elementwise_sum (add_n), paddle.div (divide),
# paddle.mul (fluid.layers.mul, with out=)
elementwise_sum = add_n
div = divide


def _axes(axis):
    """The reductions' ``axis``: None (or []) for every dim, else as given (an int Tensor: its values at run time)."""
    return None if axis is None or (isinstance(axis, (list, tuple)) and not axis) else axis


# Paddle 2.0-alpha's names of the reductions' parameters (alpha_keywords.py)
_REDUCTION_NAMES = {"input": "x", "dim": "axis", "keep_dim": "keepdim"}


def _reduction(layer, doc, axis_value=None):
    """Paddle's reduction ``layer``; ``axis_value``: its check of ``axis`` where a Tensor is not one."""

    @paddle_face
    @renamed(out=True, **_REDUCTION_NAMES)
    def fn(x, axis=None, keepdim=False, name=None):
        return layer(x, dim=_axes(axis if axis_value is None else axis_value(axis)), keep_dim=keepdim, name=name)

    also = "" if axis_value else " or an int Tensor, read when the op runs"
    fn.__name__ = fn.__qualname__ = layer.__name__.replace("reduce_", "")
    fn.__doc__ = f"The {doc} of x over ``axis`` (an int or a list{also}; None: all of x)."
    return fn


max = _reduction(L.reduce_max, "largest value")  # noqa: A001 -- Paddle's names
min = _reduction(L.reduce_min, "smallest value")  # noqa: A001
mean = _reduction(L.reduce_mean, "mean")


@paddle_face
@renamed(**_REDUCTION_NAMES)
def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001
    """The sum of x over ``axis`` (None: all), cast to ``dtype`` first when given."""
    if dtype is None and x.dtype == "bool":
        dtype = "int64"  # 2.6's sum of a bool tensor
    if dtype is not None and convert_dtype(dtype) != x.dtype:
        x = L.cast(x, dtype)
    return L.reduce_sum(x, dim=_axes(axis), keep_dim=keepdim, name=name)


@paddle_face
def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """The product of x over ``axis`` (None: all), cast to ``dtype`` first when given."""
    if dtype is not None and convert_dtype(dtype) != x.dtype:
        x = L.cast(x, dtype)
    return L.reduce_prod(x, dim=_axes(axis), keep_dim=keepdim, name=name)


@paddle_face
def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    """The variance over ``axis`` (None: all), as Paddle 2.6 builds it: the sum of (x - mean)^2 divided by n, the
    count of values reduced (numel(x) / numel(result), when the program runs: a dim of unknown size too), or by
    n - 1 where ``unbiased`` and n > 1."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "var")
    centered = subtract(x, L.reduce_mean(x, dim=_axes(axis), keep_dim=True))
    total = L.reduce_sum(L.square(centered), dim=_axes(axis), keep_dim=keepdim)
    n = divide(L.cast(L.size(x), x.dtype), L.cast(L.size(total), x.dtype))
    if unbiased:  # (Paddle's where(n > 1, n - 1, 1): n is a count)
        n = maximum(L.scale(n, bias=-1.0), L.fill_constant([], x.dtype, 1.0, zero_dim=True))
    n.stop_gradient = True
    return divide(total, n, name=name)


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """The standard deviation: sqrt(var) (float16, float32, float64 x: Paddle 2.6's check)."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "std")
    return L.sqrt(var(x, axis, unbiased, keepdim), name=name)


def logsumexp(x, axis=None, keepdim=False, name=None):
    """log(sum(exp(x))) over ``axis`` (None or []: all, 0-D unless keepdim): Paddle 2.6's logsumexp op."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "logsumexp")
    axis = [] if axis is None else [axis] if isinstance(axis, int) else list(axis)
    every = not axis or len(axis) == len(x.shape)
    return _single("logsumexp", x, {"X": [x]}, {"axis": axis, "keepdim": keepdim, "reduce_all": every}, name=name)


@paddle_face
def dist(x, y, p=2, name=None):
    """The p-norm of x - y (broadcast), over all of it: shape [1]."""
    return L.dist(x, y, p=p)


def tan(x, name=None):
    return _single("tan", x, {"X": [x]}, {}, name=name)


def log2(x, name=None):
    return _single("log2", x, {"X": [x]}, {}, name=name)


def log10(x, name=None):
    return _single("log10", x, {"X": [x]}, {}, name=name)


def log1p(x, name=None, *, out=None):
    """log(1 + x), exact for small x (the log1p op). ``out``: see written_to."""
    return written_to(L.log1p(x, name=name), out)


def _unary(layer):
    def fn(x, name=None, *, out=None):
        return written_to(layer(x, name=name), out)

    fn.__doc__ = layer.__doc__
    return fn


acos, asin, atan, ceil, cos, cosh, erf, exp, floor, log = map(
    _unary, (L.acos, L.asin, L.atan, L.ceil, L.cos, L.cosh, L.erf, L.exp, L.floor, L.log)
)


def abs(x, name=None, *, out=None):  # noqa: A001 -- Paddle's name
    """|x| elementwise; x an int32, int64 or float tensor (Paddle 2.x's abs takes integers too)."""
    check_variable_and_dtype(x, "x", ("int32", "int64", "float16", "float32", "float64"), "abs")
    return written_to(_single("abs", x, {"X": [x]}, {}, name=name), out)


def sign(x, name=None, *, out=None):
    """-1, 0 or 1 by the sign of x elementwise; x of any int or float dtype (Paddle 2.6's sign takes integers)."""
    dtypes = ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
    check_variable_and_dtype(x, "x", dtypes, "sign")
    return written_to(_single("sign", x, {"X": [x]}, {}, name=name), out)


reciprocal, round, rsqrt, sin, sinh, sqrt, square, tanh = map(  # noqa: A001
    _unary, (L.reciprocal, L.round, L.rsqrt, L.sin, L.sinh, L.sqrt, L.square, L.tanh)
)
tanh_ = tanh


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    return L.stanh(x, scale_a=scale_a, scale_b=scale_b, name=name)


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (``bias_after_scale``) or scale * (x + bias); ``scale`` a number or a
    one-element Tensor."""
    if isinstance(scale, Variable):
        if bias_after_scale:
            out = L.scale(multiply(x, scale), bias=float(bias))
        else:
            out = multiply(L.scale(x, bias=float(bias)), scale)
        return getattr(L, act)(out) if act else out
    return L.scale(x, scale=float(scale), bias=float(bias), bias_after_scale=bias_after_scale, act=act, name=name)


def clip(x, min=None, max=None, name=None):  # noqa: A002
    """x limited to [min, max]; a missing bound is float32's lowest / highest finite value, as in
    Paddle 2.0. A bound may be a one-value Tensor (float32, float64 or int32), read at run time."""
    if isinstance(min, Variable) or isinstance(max, Variable):
        return _clip_by_tensors(x, min, max, name)
    lo = float(np.finfo(np.float32).min) if min is None else float(min)
    hi = float(np.finfo(np.float32).max) if max is None else float(max)
    if str(x.dtype).startswith("int"):  # Paddle 2.x's clip takes int32/int64 x too
        limit = 2.0**31 - 1 if str(x.dtype) == "int32" else 2.0**53  # (a float attr holds it exactly)
        lo, hi = (-limit if min is None else lo), (limit if max is None else hi)
        return _single("clip", x, {"X": [x]}, {"min": lo, "max": hi}, name=name)
    return L.clip(x, lo, hi, name=name)


def _clip_by_tensors(x, min, max, name):  # noqa: A002
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "clip")
    inputs, attrs = {"X": [x]}, {"min": float(np.finfo(np.float32).min), "max": float(np.finfo(np.float32).max)}
    for key, slot, bound in (("min", "Min", min), ("max", "Max", max)):
        if isinstance(bound, Variable):
            check_variable_and_dtype(bound, key, ("float32", "float64", "int32"), "clip")
            bound.stop_gradient = True
            inputs[slot] = [bound]
        elif bound is not None:
            attrs[key] = float(bound)
    return _single("clip", x, inputs, attrs, name=name)


def clamp(x, min=None, max=None, name=None):  # noqa: A002
    """Paddle 2.0-beta's name of ``clip`` (x float16, float32 or float64: else a TypeError)."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "clamp")
    if min is None and max is None:
        raise AssertionError("either min or max should be defined.")
    return clip(x, min, max, name)


def increment(x, value=1.0, name=None):
    return L.increment(x, value=value)


def _compare(layer):
    def fn(x, y, name=None):
        # Paddle 2.x's dtypes: uint8, int8 and int16 too, which Fluid 1.8's layers refused
        return append_compare(layer.__name__, x, _var(y, x), None, None, name, PADDLE2_COMPARABLE)

    fn.__name__ = layer.__name__
    fn.__doc__ = layer.__doc__
    return fn


equal, not_equal = _compare(L.equal), _compare(L.not_equal)
less_than, less_equal = _compare(L.less_than), _compare(L.less_equal)
greater_than, greater_equal = _compare(L.greater_than), _compare(L.greater_equal)


def cumsum(x, axis=None, dtype=None, name=None):
    """The running sum along ``axis`` (None: over the flattened x), cast to ``dtype`` first; ``axis`` an int
    Tensor: read when the program runs (Paddle 2.6's VAR attribute; pe's AxisTensor input)."""
    if dtype is not None and convert_dtype(dtype) != x.dtype:
        x = L.cast(x, dtype)
    if axis is None:
        x, axis = L.reshape(x, [-1]), 0
    return L.cumsum(x, axis=axis if isinstance(axis, Variable) else int(axis))
