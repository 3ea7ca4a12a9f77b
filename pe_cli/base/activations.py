"""The activation table: one row per elementwise activation, Out = f(X), from which the ops
(pe_cli/ops/activation.py), both devices' kernels (pe_cli/kernels/*/activation.py) and the layers
(pe_cli/layers/activation.py) are made. A leaf: it imports nothing of pe, and no numba.

A row says what the op is (name, doc, attributes, accepted dtypes), what its gradient reads
(``reads``: X or Out, with Out@GRAD) and how to compute it, twice where that keeps results exact:
- ``forward(x, *params)`` and ``derivative(a, dout, *params)`` on numpy arrays: the CPU kernels.
  These are the numpy expressions the kernels always ran, constants cast to the array's dtype
  (``_c``), so NaN, -0.0, overflow and float16 results stay bit for bit what numpy gives.
- ``scalar_forward`` / ``scalar_derivative``: the same on one scalar, for device code (the CUDA
  kernels compile them with numba.cuda). None where the array form is scalar code too.
``params`` are the row's attributes, passed in the input's dtype (Out@GRAD's for the gradient).
A few helpers are not the table's to supply: the array forms call ``_erf`` (numpy has none) and the
scalar forms call ``_sigmoid`` and ``_softplus``, which device code must compile; each device binds
its own in their place with ``bind``. softmax and log_softmax (along an axis) are not rows.
"""

import math
import numbers
import sys
import types
from dataclasses import dataclass

import numpy as np

FLOATS = ("float16", "float32", "float64")


def real_number(v):
    """check: a number (inf and NaN too: Fluid's float attributes check nothing more)."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


@dataclass(frozen=True)
class Param:
    """An attribute: its default and check, as pe_cli.ops.define.Attr takes them."""

    name: str
    default: object
    check: object = None
    expect: str = ""
    choices: tuple = ()
    keyword: str = ""  # the layer's keyword where Fluid names it otherwise (softshrink)

    @property
    def layer_keyword(self):
        return self.keyword or self.name


def _number(name, default):
    return Param(name, default, real_number, "a number")


@dataclass(frozen=True)
class Activation:
    name: str
    doc: str
    forward: object  # forward(x, *params) on arrays -> Out
    derivative: object = None  # derivative(a, dout, *params) -> X@GRAD; None: no gradient
    reads: str = "X"  # what the gradient reads besides Out@GRAD: "X", "Out" or "" (nothing)
    params: tuple = ()  # Param per attribute, in the order the functions take them
    dtypes: tuple = FLOATS  # input dtypes accepted; None: any
    scalar_forward: object = None  # forward on one scalar (device code); None: ``forward`` is
    scalar_derivative: object = None
    cpu_loop: str = ""  # a numba loop in kernels/cpu/_pointwise_loops.py for float32/64
    grad_loop: bool = False  # the CPU's gradient of float32/64: one numba pass compiled from ``derivative``

    @property
    def device_forward(self):
        return self.scalar_forward or self.forward

    @property
    def device_derivative(self):
        return self.scalar_derivative or self.derivative

    def defaults(self):
        return {p.name: p.default for p in self.params}


def bind(fn, **helpers):
    """``fn`` with the helpers it calls by name replaced by a device's own (compiled) versions."""
    code = getattr(fn, "__code__", None)  # numpy ufuncs call no helper
    used = {name: h for name, h in helpers.items() if code is not None and name in code.co_names}
    if not used:
        return fn
    return types.FunctionType(fn.__code__, {**fn.__globals__, **used}, fn.__name__, fn.__defaults__, fn.__closure__)


def kernels(forward_kernel, grad_kernel):
    """{op type: kernel} of a device: ``forward_kernel(row)`` for every row, and ``grad_kernel(row)``
    as ``<name>_grad`` for the rows with a gradient."""
    made = {}
    for row in TABLE:
        made[row.name] = forward_kernel(row)
        if row.derivative is not None:
            made[f"{row.name}_grad"] = grad_kernel(row)
    for name, kernel in made.items():
        kernel.__name__ = kernel.__qualname__ = name
    return made


# -- helpers ---------------------------------------------------------------------------------------


def _c(a, value):
    """A constant in a's dtype, so float32 arrays stay float32 whatever numpy's casting rules."""
    return a.dtype.type(value)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _erf(x):
    """erf of an array: numpy has none and this table imports no numba; the CPU kernels bind theirs."""
    raise NotImplementedError("_erf is bound by the device kernels (pe_cli/kernels/cpu/activation.py)")


def _sigmoid_array(x):
    """1 / (1 + exp(-x)) in x's dtype, Fluid's formula and roundings (exp(-x) overflowing to inf gives 0):
    op_test's float32 finite differences of sigmoid (test_activation_op.py's TestSigmoid, within 1 %)
    land on the derivative with them, 1 % off with the rearranged e / (1 + e) for x < 0."""
    with np.errstate(over="ignore"):
        return (_c(x, 1) / (_c(x, 1) + np.exp(-x))).astype(x.dtype, copy=False)


def _softplus_array(x):
    """log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): no overflow."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


_LOG_MAX = math.log(sys.float_info.max)  # exp of more overflows float64


def _sigmoid(x):
    """1 / (1 + exp(-x)), _sigmoid_array's formula on one scalar: 0 where exp(-x) overflows (a device's
    exp gives inf there, as numpy's; Python's math.exp, which the CUDA simulator runs, raises)."""
    return 0.0 if -x > _LOG_MAX else 1 / (1 + math.exp(-x))


def _softplus(x):
    return max(x, 0) + math.log1p(math.exp(-math.fabs(x)))


def _device_constant(a, value):
    """``_c`` in device code: the constant as numba types it (the scalar forms' arithmetic is numba's)."""
    return value


SCALAR_HELPERS = {"_sigmoid": _sigmoid, "_softplus": _softplus, "_c": _device_constant}


def _swish_grad_array(x, d, b):
    s = _sigmoid_array(x * b)
    return d * (s + x * b * s * (1 - s))


def _swish_grad(x, d, b):
    s = _sigmoid(x * b)
    return d * (s + x * b * s * (1 - s))


def _softsign_grad(x, d):
    t = 1 + abs(x)
    return d / (t * t)


def _abs_grad(x, d):
    if x > 0:
        return d
    return -d if x < 0 else 0 * d


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_C = 0.044715
_INV_SQRT2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _gelu_array(x, approximate):
    if approximate:
        inner = _c(x, _SQRT_2_OVER_PI) * (x + _c(x, _GELU_C) * x * x * x)
        return _c(x, 0.5) * x * (1 + np.tanh(inner))
    return _c(x, 0.5) * x * (1 + _erf(x * _c(x, _INV_SQRT2)))


def _gelu_grad_array(x, d, approximate):
    if approximate:
        t = np.tanh(_c(x, _SQRT_2_OVER_PI) * (x + _c(x, _GELU_C) * x * x * x))
        dinner = _c(x, _SQRT_2_OVER_PI) * (1 + _c(x, 3 * _GELU_C) * x * x)
        return d * (_c(x, 0.5) * (1 + t) + _c(x, 0.5) * x * (1 - t * t) * dinner)
    cdf = _c(x, 0.5) * (1 + _erf(x * _c(x, _INV_SQRT2)))
    pdf = np.exp(x * x * _c(x, -0.5)) * _c(x, _INV_SQRT_2PI)
    return d * (cdf + x * pdf)


def _gelu(x, approximate):
    if approximate:
        return 0.5 * x * (1 + math.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x * x * x)))
    return 0.5 * x * (1 + math.erf(x * _INV_SQRT2))


def _gelu_grad(x, d, approximate):
    if approximate:
        t = math.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x * x * x))
        dinner = _SQRT_2_OVER_PI * (1 + 3 * _GELU_C * x * x)
        return d * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * dinner)
    cdf = 0.5 * (1 + math.erf(x * _INV_SQRT2))
    pdf = math.exp(x * x * -0.5) * _INV_SQRT_2PI
    return d * (cdf + x * pdf)


def _mish_parts_array(x, t):
    """(softplus(x) as Fluid's mish computes it, its derivative): with a threshold t > 0, x above t and
    exp(x) below -t (Fluid's gradient takes 1 - exp(-sp) for the derivative, the same but for e^-t)."""
    if not t > 0:
        return _softplus_array(x), _sigmoid_array(x)
    sp = np.where(x > t, x, np.where(x < -t, np.exp(x), _softplus_array(x)))
    dsp = np.where(x > t, _c(x, 1), np.where(x < -t, np.exp(x), _sigmoid_array(x)))
    return sp, dsp


def _mish_array(x, t):
    return x * np.tanh(_mish_parts_array(x, t)[0])


def _mish_grad_array(x, d, t):
    sp, dsp = _mish_parts_array(x, t)
    tsp = np.tanh(sp)
    return d * (tsp + x * (1 - tsp * tsp) * dsp)


def _mish_softplus(x, t):
    """softplus(x) as Fluid's mish takes it: x above a threshold t > 0, exp(x) below -t."""
    if t > 0 and x > t:
        return x
    if t > 0 and x < -t:
        return math.exp(x)
    return max(x, 0.0) + math.log1p(math.exp(-math.fabs(x)))


def _mish(x, t):
    return x * math.tanh(_mish_softplus(x, t))


def _mish_grad(x, d, t):
    sp = _mish_softplus(x, t)
    if t > 0 and x > t:
        dsp = 1.0
    elif t > 0 and x < -t:
        dsp = sp
    else:
        dsp = _sigmoid(x)
    tsp = math.tanh(sp)
    return d * (tsp + x * (1 - tsp * tsp) * dsp)


SCALAR_HELPERS["_mish_softplus"] = _mish_softplus  # (a helper _mish and _mish_grad call on a device)


# -- the table --------------------------------------------------------------------------------------

A = Activation
TABLE = (
    A(
        "relu",
        "Out = max(X, 0).",
        reads="Out",
        dtypes=None,
        cpu_loop="relu",
        forward=lambda x: np.maximum(x, 0, dtype=x.dtype),
        derivative=lambda o, d: d * (o > 0),
        scalar_forward=lambda x: x if x > 0 else 0 * x,
        scalar_derivative=lambda o, d: d if o > 0 else 0 * d,
    ),
    # Fluid 1.8's formulas, which differ from the usual ones for alpha > 1 or < 0 (leaky_relu) and
    # alpha < 0 (elu); the gradient of leaky_relu is 1 where Out > 0, else alpha, as Fluid's
    A(
        "leaky_relu",
        "Out = max(X, alpha * X) (X where X > 0, alpha * X elsewhere, for alpha in [0, 1]).",
        params=(_number("alpha", 0.02),),
        reads="Out",
        forward=lambda x, a: np.fmax(x, x * a),
        derivative=lambda o, d, a: np.where(o > 0, d, d * a),
        scalar_forward=lambda x, a: max(x, x * a),
        scalar_derivative=lambda o, d, a: d if o > 0 else d * a,
    ),
    A(
        "elu",
        "Out = max(X, 0) + min(alpha * (exp(X) - 1), 0) (for alpha >= 0: X where X > 0, alpha * (exp(X) - "
        "1) elsewhere).",
        params=(_number("alpha", 1.0),),
        # exp of positive values only where alpha < 0 needs them: no overflow otherwise
        forward=lambda x, a: np.maximum(x, 0) + np.minimum(a * np.expm1(x if a < 0 else np.minimum(x, 0)), 0),
        derivative=lambda x, d, a: np.where(x > 0, d, d * a * np.exp(np.minimum(x, 0))),
        scalar_forward=lambda x, a: max(x, 0 * x) + min(a * math.expm1(x if a < 0 else min(x, 0)), 0 * x),
        scalar_derivative=lambda x, d, a: d if x > 0 else d * a * math.exp(min(x, 0)),
    ),
    A(
        "relu6",
        "Out = min(max(X, 0), threshold).",
        reads="Out",
        params=(_number("threshold", 6.0),),
        forward=lambda x, t: np.clip(x, _c(x, 0), t),
        derivative=lambda o, d, t: d * ((o > 0) & (o < t)),
        scalar_forward=lambda x, t: 0 * x if x < 0 else (t if x > t else x),
        scalar_derivative=lambda o, d, t: d if (o > 0 and o < t) else 0 * d,
    ),
    A(
        "sigmoid",
        "Out = 1 / (1 + exp(-X)).",
        reads="Out",
        grad_loop=True,
        forward=_sigmoid_array,
        derivative=lambda o, d: d * o * (_c(o, 1) - o),
        scalar_forward=_sigmoid,
    ),
    A(
        "logsigmoid",
        "Out = log(1 / (1 + exp(-X))) = -softplus(-X).",
        forward=lambda x: -_softplus_array(-x),
        derivative=lambda x, d: d * _sigmoid_array(-x),
        scalar_forward=lambda x: -_softplus(-x),
        scalar_derivative=lambda x, d: d * _sigmoid(-x),
    ),
    A(
        "hard_sigmoid",
        "Out = clip(slope * X + offset, 0, 1).",
        reads="Out",
        params=(_number("slope", 0.2), _number("offset", 0.5)),
        forward=lambda x, s, b: np.clip(x * s + b, _c(x, 0), _c(x, 1)),
        derivative=lambda o, d, s, b: d * ((o > 0) & (o < 1)) * s,
        scalar_forward=lambda x, s, b: min(max(x * s + b, 0), 1),
        scalar_derivative=lambda o, d, s, b: d * s if (o > 0 and o < 1) else 0 * d,
    ),
    A(
        "swish",
        "Out = X * sigmoid(beta * X).",
        params=(_number("beta", 1.0),),
        forward=lambda x, b: x * _sigmoid_array(x * b),
        derivative=_swish_grad_array,
        scalar_forward=lambda x, b: x * _sigmoid(x * b),
        scalar_derivative=_swish_grad,
    ),
    A(
        "tanh",
        "Out = tanh(X).",
        reads="Out",
        grad_loop=True,
        forward=np.tanh,
        derivative=lambda o, d: d * (_c(o, 1) - o * o),
        scalar_forward=lambda x: math.tanh(x),
    ),
    A(
        "gelu",
        "Out = X * Phi(X): 0.5 X (1 + erf(X / sqrt 2)), or with approximate=True "
        "0.5 X (1 + tanh(sqrt(2 / pi) (X + 0.044715 X^3))).",
        params=(Param("approximate", False, choices=(False, True)),),
        forward=_gelu_array,
        derivative=_gelu_grad_array,
        scalar_forward=_gelu,
        scalar_derivative=_gelu_grad,
    ),
    A(
        "softplus",
        "Out = log(1 + exp(beta * X)) / beta, computed without overflow, or X where beta * X > "
        "threshold (Paddle 2.x's attributes; the defaults, beta 1 and no threshold, are Fluid 1.8's softplus).",
        params=(
            Param("beta", 1.0, lambda v: real_number(v) and v > 0, "a number > 0"),
            Param("threshold", math.inf, lambda v: isinstance(v, numbers.Real) and v > 0, "a number > 0"),
        ),
        forward=lambda x, b, t: np.where(x * b > t, x, _softplus_array(x * b) / b),
        derivative=lambda x, d, b, t: np.where(x * b > t, d, d * _sigmoid_array(x * b)),
        scalar_forward=lambda x, b, t: x if x * b > t else _softplus(x * b) / b,
        scalar_derivative=lambda x, d, b, t: d if x * b > t else d * _sigmoid(x * b),
    ),
    A(
        "mish",
        "Out = X * tanh(softplus(X)), softplus(X) taken as X above threshold and exp(X) below -threshold "
        "(Fluid 1.8's mish).",
        params=(_number("threshold", 20.0),),
        forward=_mish_array,
        derivative=_mish_grad_array,
        scalar_forward=_mish,
        scalar_derivative=_mish_grad,
    ),
    A("softsign", "Out = X / (1 + |X|).", forward=lambda x: x / (1 + abs(x)), derivative=_softsign_grad),
    A(
        "sqrt",
        "Out = sqrt(X).",
        reads="Out",
        forward=np.sqrt,
        derivative=lambda o, d: d * _c(o, 0.5) / o,
        scalar_forward=lambda x: math.sqrt(x),
        scalar_derivative=lambda o, d: d * 0.5 / o,
    ),
    A(
        "rsqrt",
        "Out = 1 / sqrt(X).",
        reads="Out",
        forward=lambda x: 1 / np.sqrt(x),
        derivative=lambda o, d: d * _c(o, -0.5) * o * o * o,
        scalar_forward=lambda x: 1 / math.sqrt(x),
        scalar_derivative=lambda o, d: d * -0.5 * o * o * o,
    ),
    A("reciprocal", "Out = 1 / X.", reads="Out", forward=lambda x: 1 / x, derivative=lambda o, d: -d * o * o),
    A(
        "exp",
        "Out = exp(X) (an integer X: truncated to its dtype, as Fluid 1.8.5's kernel).",
        reads="Out",
        dtypes=None,
        forward=np.exp,
        derivative=lambda o, d: d * o,
        scalar_forward=lambda x: math.exp(x),
    ),
    A("log", "Out = ln(X).", forward=np.log, derivative=lambda x, d: d / x, scalar_forward=lambda x: math.log(x)),
    A(
        "log1p",
        "Out = ln(1 + X), exact for small X.",
        forward=np.log1p,
        derivative=lambda x, d: d / (1 + x),
        scalar_forward=lambda x: math.log1p(x),
    ),
    A("square", "Out = X * X.", dtypes=None, forward=lambda x: x * x, derivative=lambda x, d: d * x * 2),
    A(
        "abs",
        "Out = |X|; the gradient at 0 is 0.",
        dtypes=None,
        forward=np.abs,
        derivative=lambda x, d: d * np.sign(x),
        scalar_forward=lambda x: -x if x < 0 else x,
        scalar_derivative=_abs_grad,
    ),
    A(
        "sign",
        "Out = -1, 0 or 1 by the sign of X; the gradient is 0 (Fluid's).",
        dtypes=None,
        forward=np.sign,
        derivative=lambda x, d: d * 0,
        scalar_forward=lambda x: 1 if x > 0 else (-1 if x < 0 else 0),
    ),
    A(
        "pow",
        "Out = X ** factor (factor in X's dtype).",
        params=(_number("factor", 1.0),),
        dtypes=None,
        forward=lambda x, f: x**f,
        derivative=lambda x, d, f: d * f * x ** (f - 1),
    ),
    A(
        "floor",
        "Out = the largest integer <= X; the gradient is 0.",
        forward=np.floor,
        reads="",
        derivative=lambda d, d_: d * 0,
        scalar_forward=lambda x: math.floor(x),
    ),
    A(
        "ceil",
        "Out = the smallest integer >= X; the gradient is 0.",
        forward=np.ceil,
        reads="",
        derivative=lambda d, d_: d * 0,
        scalar_forward=lambda x: math.ceil(x),
    ),
    A(
        "round",
        "Out = X rounded to the nearest integer, halves away from 0; the gradient is 0.",
        reads="",
        forward=lambda x: np.sign(x) * np.floor(np.abs(x) + _c(x, 0.5)),
        derivative=lambda d, d_: d * 0,
        scalar_forward=lambda x: math.copysign(math.floor(abs(x) + 0.5), x),
    ),
    A(
        "erf",
        "Out = erf(X), the Gauss error function.",
        forward=lambda x: _erf(x),
        derivative=lambda x, d: d * _c(x, _TWO_OVER_SQRT_PI) * np.exp(-(x * x)),
        scalar_forward=lambda x: math.erf(x),
        scalar_derivative=lambda x, d: d * _TWO_OVER_SQRT_PI * math.exp(-(x * x)),
    ),
    A(
        "cos",
        "Out = cos(X).",
        forward=np.cos,
        derivative=lambda x, d: -d * np.sin(x),
        scalar_forward=lambda x: math.cos(x),
        scalar_derivative=lambda x, d: -d * math.sin(x),
    ),
    A(
        "sin",
        "Out = sin(X).",
        forward=np.sin,
        derivative=lambda x, d: d * np.cos(x),
        scalar_forward=lambda x: math.sin(x),
        scalar_derivative=lambda x, d: d * math.cos(x),
    ),
    A(
        "acos",
        "Out = arccos(X).",
        forward=np.arccos,
        derivative=lambda x, d: -d / np.sqrt(1 - x * x),
        scalar_forward=lambda x: math.acos(x),
        scalar_derivative=lambda x, d: -d / math.sqrt(1 - x * x),
    ),
    A(
        "asin",
        "Out = arcsin(X).",
        forward=np.arcsin,
        derivative=lambda x, d: d / np.sqrt(1 - x * x),
        scalar_forward=lambda x: math.asin(x),
        scalar_derivative=lambda x, d: d / math.sqrt(1 - x * x),
    ),
    A(
        "atan",
        "Out = arctan(X).",
        forward=np.arctan,
        derivative=lambda x, d: d / (1 + x * x),
        scalar_forward=lambda x: math.atan(x),
    ),
    A(
        "cosh",
        "Out = cosh(X).",
        forward=np.cosh,
        derivative=lambda x, d: d * np.sinh(x),
        scalar_forward=lambda x: math.cosh(x),
        scalar_derivative=lambda x, d: d * math.sinh(x),
    ),
    A(
        "sinh",
        "Out = sinh(X).",
        forward=np.sinh,
        derivative=lambda x, d: d * np.cosh(x),
        scalar_forward=lambda x: math.sinh(x),
        scalar_derivative=lambda x, d: d * math.cosh(x),
    ),
    A(
        "selu",
        "Out = scale * X where X > 0, scale * alpha * (exp(X) - 1) elsewhere.",
        params=(_number("scale", 1.0507009873554805), _number("alpha", 1.6732632423543772)),
        forward=lambda x, s, a: np.where(x > 0, x * s, (np.exp(x) - 1) * (a * s)),
        reads="Out",  # (Fluid's: from Out)
        derivative=lambda o, d, s, a: np.where(o > 0, d * s, d * (o + a * s)),
        scalar_forward=lambda x, s, a: x * s if x > 0 else (math.exp(x) - 1) * (a * s),
        scalar_derivative=lambda o, d, s, a: d * s if o > 0 else d * (o + a * s),
    ),
    A(
        "stanh",
        "Out = scale_b * tanh(scale_a * X).",
        params=(_number("scale_a", 0.67), _number("scale_b", 1.7159)),
        forward=lambda x, a, b: np.tanh(x * a) * b,
        derivative=lambda x, d, a, b: d * (a * b) * (1 - np.tanh(x * a) ** 2),
        scalar_forward=lambda x, a, b: math.tanh(x * a) * b,
        scalar_derivative=lambda x, d, a, b: d * (a * b) * (1 - math.tanh(x * a) ** 2),
    ),
    A(
        "brelu",
        "Out = min(max(X, t_min), t_max).",
        params=(_number("t_min", 0.0), _number("t_max", 24.0)),
        forward=lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
        derivative=lambda x, d, lo, hi: d * ((x > lo) & (x < hi)),
        scalar_forward=lambda x, lo, hi: min(max(x, lo), hi),
        scalar_derivative=lambda x, d, lo, hi: d if (x > lo and x < hi) else 0 * d,
    ),
    # Fluid's gradient from Out: dOut (1 - exp(-Out)) where -threshold < Out < threshold (its mask, on Out)
    A(
        "soft_relu",
        "Out = log(1 + exp(min(max(X, -threshold), threshold))); the gradient is Fluid's: Out@GRAD * "
        "(1 - exp(-Out)) where -threshold < Out < threshold, else 0.",
        params=(_number("threshold", 40.0),),
        reads="Out",
        forward=lambda x, t: np.log1p(np.exp(np.minimum(np.maximum(x, -t), t))),
        derivative=lambda o, d, t: d * -np.expm1(-o) * ((o > -t) & (o < t)),
        scalar_forward=lambda x, t: math.log1p(math.exp(min(max(x, -t), t))),
        scalar_derivative=lambda o, d, t: d * -math.expm1(-o) if (o > -t and o < t) else 0 * d,
    ),
    A(
        "thresholded_relu",
        "Out = X where X > threshold, 0 elsewhere.",
        params=(_number("threshold", 1.0),),
        forward=lambda x, t: np.where(x > t, x, x * 0),
        derivative=lambda x, d, t: d * (x > t),
        scalar_forward=lambda x, t: x if x > t else 0 * x,
        scalar_derivative=lambda x, d, t: d if x > t else 0 * d,
    ),
    # hard_shrink and softshrink as Fluid sums their two sides (both hold where the threshold is < 0)
    A(
        "hard_shrink",
        "Out = X (X < -threshold) + X (X > threshold): X where |X| > threshold >= 0, else 0.",
        params=(_number("threshold", 0.5),),
        forward=lambda x, t: x * (x < -t) + x * (x > t),
        derivative=lambda x, d, t: d * (x < -t) + d * (x > t),
        scalar_forward=lambda x, t: (x if x < -t else 0 * x) + (x if x > t else 0 * x),
        scalar_derivative=lambda x, d, t: (d if x < -t else 0 * d) + (d if x > t else 0 * d),
    ),
    A(
        "softshrink",
        "Out = (X - lambda)(X > lambda) + (X + lambda)(X < -lambda): 0 within [-lambda, lambda] "
        "for lambda >= 0 (the layer's keyword is alpha, as Fluid's).",
        params=(Param("lambda", 0.5, real_number, "a number", keyword="alpha"),),
        forward=lambda x, t: (x - t) * (x > t) + (x + t) * (x < -t),
        derivative=lambda x, d, t: d * (x > t) + d * (x < -t),
        scalar_forward=lambda x, t: (x - t if x > t else 0 * x) + (x + t if x < -t else 0 * x),
        scalar_derivative=lambda x, d, t: (d if x > t else 0 * d) + (d if x < -t else 0 * d),
    ),
    A(
        "hard_swish",
        "Out = X * min(max(X + offset, 0), threshold) / scale.",
        params=(_number("threshold", 6.0), _number("scale", 6.0), _number("offset", 3.0)),
        forward=lambda x, t, s, o: x * np.minimum(np.maximum(x + o, _c(x, 0)), t) / s,
        derivative=lambda x, d, t, s, o: d * np.where(x + o >= t, t / s, np.where(x + o > 0, (x * 2 + o) / s, x * 0)),
        scalar_forward=lambda x, t, s, o: x * min(max(x + o, 0), t) / s,
        scalar_derivative=lambda x, d, t, s, o: (
            d * t / s if x + o >= t else (d * (2 * x + o) / s if x + o > 0 else 0 * d)
        ),
    ),
    A(
        "tanh_shrink",
        "Out = X - tanh(X).",
        forward=lambda x: x - np.tanh(x),
        derivative=lambda x, d: d * np.tanh(x) ** 2,
        scalar_forward=lambda x: x - math.tanh(x),
        scalar_derivative=lambda x, d: d * math.tanh(x) ** 2,
    ),
)
del A
ROWS = {row.name: row for row in TABLE}
