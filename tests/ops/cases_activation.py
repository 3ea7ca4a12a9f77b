"""Op cases for family activation: the activations, softmax, log_softmax, prelu (all, channel, element;
reference after Fluid 1.8's test_prelu_op.py), maxout and relu."""

import math

import numpy as np

from op_test import OpCase
from tests.ops.paddle26 import recorded_cases

rng = np.random.default_rng(11)


def r(*shape, low=-2.0, high=2.0, gap=0.0):
    """Uniform values in [low, high), kept at least ``gap`` away from 0 (kinks of relu, abs, ...)."""
    x = rng.uniform(low, high, size=shape)
    if gap:
        x = np.where(np.abs(x) < gap, np.copysign(gap, x) + x, x)
    return x


def pos(*shape, low=0.5, high=2.0):
    return rng.uniform(low, high, size=shape)


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def _erf(x):
    return np.vectorize(math.erf)(x)


def _softmax(x, axis):
    e = np.exp(np.maximum(x - x.max(axis=axis, keepdims=True), -64.0))  # Fluid's CPU kernel clips at -64
    return e / e.sum(axis=axis, keepdims=True)


def unary(op, ref, x, name=None, attrs=None, grad=True, **kw):
    return OpCase(
        op,
        {"X": x},
        lambda i, a: {"Out": ref(i["X"], a)},
        attrs=attrs or {},
        grad=("X",) if grad else (),
        name=name or op,
        **kw,
    )


CASES = [
    unary("leaky_relu", lambda x, a: np.where(x > 0, x, 0.02 * x), r(3, 4, gap=0.05)),
    unary(
        "leaky_relu",
        lambda x, a: np.where(x > 0, x, a["alpha"] * x),
        r(3, 4, gap=0.05),
        name="leaky_relu_alpha",
        attrs={"alpha": 0.3},
    ),
    unary("elu", lambda x, a: np.where(x > 0, x, np.exp(x) - 1), r(3, 4, gap=0.05)),
    unary(
        "elu",
        lambda x, a: np.where(x > 0, x, 0.5 * (np.exp(x) - 1)),
        r(2, 5, gap=0.05),
        name="elu_alpha",
        attrs={"alpha": 0.5},
    ),
    unary("relu6", lambda x, a: np.clip(x, 0, 6), np.array([[-3.0, -0.2, 0.3, 2.0], [5.5, 6.4, 9.0, 1.0]])),
    unary(
        "relu6",
        lambda x, a: np.clip(x, 0, 2.5),
        np.array([[-1.0, 0.4, 2.2, 2.8], [3.5, -0.1, 1.5, 0.9]]),
        name="relu6_threshold",
        attrs={"threshold": 2.5},
    ),
    unary("sigmoid", lambda x, a: _sigmoid(x), r(3, 4, low=-5, high=5)),
    unary(
        "sigmoid",
        lambda x, a: _sigmoid(x),
        np.array([[-800.0, -30.0, 0.0, 30.0, 800.0]]),
        name="sigmoid_extremes",
        grad=False,
    ),
    unary("logsigmoid", lambda x, a: np.log(_sigmoid(x)), r(3, 4, low=-5, high=5)),
    unary(
        "hard_sigmoid",
        lambda x, a: np.clip(0.2 * x + 0.5, 0, 1),
        np.array([[-4.0, -2.4, -1.0, 0.3], [1.1, 2.4, 2.6, 4.0]]),
    ),
    unary("swish", lambda x, a: x * _sigmoid(1.5 * x), r(3, 4), attrs={"beta": 1.5}),
    unary("tanh", lambda x, a: np.tanh(x), r(3, 4)),
    unary("gelu", lambda x, a: 0.5 * x * (1 + _erf(x / math.sqrt(2))), r(3, 4, low=-3, high=3)),
    unary(
        "gelu",
        lambda x, a: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
        r(3, 4, low=-3, high=3),
        name="gelu_approximate",
        attrs={"approximate": True},
    ),
    unary(
        "gelu",
        lambda x, a: (0.5 * x * (1 + _erf(x / math.sqrt(2)))).astype(np.float32),
        r(2, 3).astype(np.float32),
        name="gelu_float32",
        grad=False,
        rtol=1e-5,
        atol=1e-6,
    ),
    unary("softplus", lambda x, a: np.log1p(np.exp(x)), r(3, 4, low=-4, high=4)),
    unary(
        "softplus",
        lambda x, a: np.array([[0.0, 0.0, np.log(2.0), 50.0, 1000.0]]),
        np.array([[-1000.0, -50.0, 0.0, 50.0, 1000.0]]),
        name="softplus_extremes",
        grad=False,
        atol=1e-20,
    ),
    OpCase(
        "softplus",
        {"X": np.array([[-3.0, -0.5, 0.2, 1.5, 2.5, 4.0]])},
        lambda i, a: {"Out": np.where(2 * i["X"] > 4.5, i["X"], np.log1p(np.exp(2 * i["X"])) / 2)},
        attrs={"beta": 2.0, "threshold": 4.5},
        grad=("X",),
        name="softplus_beta_threshold",
    ),
    unary("mish", lambda x, a: x * np.tanh(np.log1p(np.exp(x))), r(3, 4, low=-4, high=4)),
    unary(
        "mish",
        lambda x, a: np.where(
            x > 1.0, x * np.tanh(x), np.where(x < -1.0, x * np.tanh(np.exp(x)), x * np.tanh(np.log1p(np.exp(x))))
        ),
        np.array([[-3.0, -1.5, -0.5, 0.3, 1.7, 2.5]]),
        name="mish_threshold",
        attrs={"threshold": 1.0},
    ),
    unary("softsign", lambda x, a: x / (1 + np.abs(x)), r(3, 4, gap=0.05)),
    unary("sqrt", lambda x, a: np.sqrt(x), pos(3, 4)),
    unary("rsqrt", lambda x, a: 1 / np.sqrt(x), pos(3, 4)),
    unary("reciprocal", lambda x, a: 1 / x, pos(3, 4) * np.where(r(3, 4) > 0, 1, -1)),
    unary("exp", lambda x, a: np.exp(x), r(3, 4)),
    unary("log", lambda x, a: np.log(x), pos(3, 4)),
    unary("log1p", lambda x, a: np.log1p(x), pos(3, 4, low=-0.5, high=2.0)),
    unary(
        "log1p",
        lambda x, a: np.array([[1e-10, -1e-12]], dtype=np.float32),
        np.array([[1e-10, -1e-12]], np.float32),
        name="log1p_tiny",
        grad=False,
        rtol=1e-6,
    ),
    unary("square", lambda x, a: x * x, r(3, 4)),
    unary("square", lambda x, a: x * x, np.array([[1, -2], [3, 0]], dtype=np.int64), name="square_int64", grad=False),
    unary("abs", lambda x, a: np.abs(x), r(3, 4, gap=0.05)),
    unary("sign", lambda x, a: np.sign(x), np.array([[-2.5, 0.0, 3.0], [1e-9, -1e-9, 0.0]]), grad=False),
    unary("sign", lambda x, a: np.sign(x), r(3, 4, gap=0.05), name="sign_zero_gradient"),  # Fluid's: 0
    unary(
        "sign", lambda x, a: np.sign(x).astype(np.float32), r(2, 3).astype(np.float32), name="sign_float32", grad=False
    ),
    unary(
        "relu",
        lambda x, a: np.maximum(x, 0).astype(np.float32),
        r(3, 4).astype(np.float32),
        name="relu_float32",
        grad=False,
    ),
    unary(
        "sigmoid",
        lambda x, a: _sigmoid(x).astype(np.float32),
        r(3, 4).astype(np.float32),
        name="sigmoid_float32",
        grad=False,
        rtol=1e-6,
        atol=1e-7,
    ),
    unary("softmax", lambda x, a: _softmax(x, -1), r(3, 5)),
    unary("softmax", lambda x, a: _softmax(x, 1), r(2, 3, 4), name="softmax_axis1", attrs={"axis": 1}),
    unary(
        "softmax",
        lambda x, a: _softmax(x, 0),
        r(3, 4) * 30,
        name="softmax_axis0_large",
        attrs={"axis": 0},
        grad_rtol=1e-4,
        grad_atol=1e-6,
    ),
    # logits 100 apart: Fluid's CPU softmax clips the shifted logits at -64, so no probability is 0
    unary(
        "softmax",
        lambda x, a: _softmax(x, -1),
        np.array([[0.0, -100.0, 1.0], [-90.0, 2.0, 0.5]]),
        name="softmax_clipped",
        grad=False,
    ),
    unary("log_softmax", lambda x, a: np.log(_softmax(x, -1)), r(3, 5)),
    unary(
        "log_softmax",
        lambda x, a: np.log(_softmax(x, -2)),
        r(2, 4, 3),
        name="log_softmax_axis_neg2",
        attrs={"axis": -2},
    ),
    unary(
        "softmax",
        lambda x, a: _softmax(x, -1).astype(np.float32),
        r(2, 6).astype(np.float32),
        name="softmax_float32",
        grad=False,
        rtol=1e-6,
        atol=1e-7,
    ),
]


# -- prelu ------------------------------------------------------------------------------------------


def away_from_zero(*shape):
    """Values at least 0.1 from 0, where prelu's kink would spoil finite differences."""
    v = r(*shape)
    return np.where(np.abs(v) < 0.1, np.sign(v + 1e-12) * 0.1 + v, v)


def _prelu_ref(mode):
    def ref(i, a):
        x, alpha = i["X"], i["Alpha"]
        if mode == "channel":
            alpha = alpha.reshape((1, x.shape[1]) + (1,) * (x.ndim - 2))
        elif mode == "element":
            alpha = alpha.reshape((1,) + x.shape[1:])
        else:
            alpha = alpha.reshape(())
        return {"Out": np.maximum(x, 0) + np.minimum(x, 0) * alpha}

    return ref


CASES += [
    OpCase(
        "prelu",
        {"X": away_from_zero(3, 4, 2, 2), "Alpha": np.array([0.25])},
        _prelu_ref("all"),
        attrs={"mode": "all"},
        grad=("X", "Alpha"),
    ),
    OpCase(
        "prelu",
        {"X": away_from_zero(2, 3, 2, 3), "Alpha": r(1, 3, 1, 1)},
        _prelu_ref("channel"),
        attrs={"mode": "channel"},
        grad=("X", "Alpha"),
        name="prelu_channel",
    ),
    OpCase(
        "prelu",
        {"X": away_from_zero(3, 2, 3), "Alpha": r(1, 2, 3)},
        _prelu_ref("element"),
        attrs={"mode": "element"},
        grad=("X", "Alpha"),
        name="prelu_element",
    ),
]


# -- maxout (reference after Fluid 1.8's test_maxout_op.py) -------------------------------------------


def _maxout_ref(i, a):
    x, g = i["X"], a["groups"]
    axis = a["axis"] % x.ndim  # the channels: each run of g of them gives its max
    shape = x.shape[:axis] + (x.shape[axis] // g, g) + x.shape[axis + 1 :]
    return {"Out": x.reshape(shape).max(axis=axis + 1)}


_distinct = rng.permutation(96).reshape(2, 12, 2, 2) / 10.0  # no ties for maxout's gradient

CASES += [
    OpCase("maxout", {"X": _distinct}, _maxout_ref, attrs={"groups": 3}, grad=("X",)),
    OpCase(
        "maxout",
        {"X": _distinct.transpose(0, 2, 3, 1).copy()},
        _maxout_ref,
        attrs={"groups": 4, "axis": -1},
        grad=("X",),
        name="maxout_nhwc",
    ),
]

CASES += [
    OpCase("relu", {"X": r(4, 5)}, lambda i, a: {"Out": np.maximum(i["X"], 0)}, grad=("X",)),
]

# The gradient ops of relu, leaky_relu, elu, sqrt and square have a gradient too, Fluid 1.8's one
# <op>_grad_grad op each: its DDOut (the gradient of Out@GRAD) and, for elu, sqrt and square, the
# gradient of X or Out, against finite differences of the grad op
_X = r(3, 4, gap=0.1)
_DOUT = r(3, 4)


def _grad_case(op, inputs, derivative, grad, attrs=None):
    return OpCase(
        f"{op}_grad",
        inputs,
        lambda i, a: {"X@GRAD": derivative(i, a)},
        attrs=attrs or {},
        grad=grad,
        name=f"{op}_grad_double",
    )


CASES += [
    _grad_case(
        "relu",
        {"Out": np.maximum(_X, 0), "Out@GRAD": _DOUT},
        lambda i, a: i["Out@GRAD"] * (i["Out"] > 0),
        ("Out@GRAD",),
    ),
    _grad_case(
        "leaky_relu",
        {"Out": np.fmax(_X, 0.3 * _X), "Out@GRAD": _DOUT},
        lambda i, a: np.where(i["Out"] > 0, 1, a["alpha"]) * i["Out@GRAD"],
        ("Out@GRAD",),
        {"alpha": 0.3},
    ),
    _grad_case(
        "elu",
        {"X": _X, "Out@GRAD": _DOUT},
        lambda i, a: np.where(i["X"] > 0, 1, a["alpha"] * np.exp(i["X"])) * i["Out@GRAD"],
        ("X", "Out@GRAD"),
        {"alpha": 0.7},
    ),
    _grad_case(
        "sqrt", {"Out": pos(3, 4), "Out@GRAD": _DOUT}, lambda i, a: 0.5 * i["Out@GRAD"] / i["Out"], ("Out", "Out@GRAD")
    ),
    _grad_case("square", {"X": _X, "Out@GRAD": _DOUT}, lambda i, a: 2 * i["X"] * i["Out@GRAD"], ("X", "Out@GRAD")),
]

# Fluid 1.8.5's own formulas where an attribute leaves the usual range (its kernels', checked against the
# 1.8.5 oracle): leaky_relu = max(X, alpha X), elu = max(X, 0) + min(alpha (e^X - 1), 0), the shrinks as
# the sums of their two sides, mish's threshold branches only for a threshold > 0
_ODD = np.array([[-3.0, -1.0, -0.25, 0.0], [0.25, 1.0, 2.0, 30.0]])
CASES += [
    unary(
        "leaky_relu",
        lambda x, a: np.maximum(x, 2 * x),
        _ODD,
        attrs={"alpha": 2.0},
        grad=False,
        name="leaky_relu_alpha_above_one",
    ),
    unary(
        "elu",
        lambda x, a: np.maximum(x, 0) + np.minimum(-np.expm1(x), 0),
        _ODD,
        attrs={"alpha": -1.0},
        grad=False,
        name="elu_negative_alpha",
    ),
    unary(
        "softshrink",
        lambda x, a: (x + 0.5) * (x > -0.5) + (x - 0.5) * (x < 0.5),
        _ODD,
        attrs={"lambda": -0.5},
        grad=False,
        name="softshrink_negative_lambda",
    ),
    unary(
        "hard_shrink",
        lambda x, a: x * (x < 1) + x * (x > -1),
        _ODD,
        attrs={"threshold": -1.0},
        grad=False,
        name="hard_shrink_negative_threshold",
    ),
    unary(
        "mish",
        lambda x, a: x * np.tanh(np.log1p(np.exp(x))),
        _ODD,
        attrs={"threshold": 0.0},
        grad=False,
        name="mish_threshold_zero",
    ),
]
CASES += recorded_cases("activation")  # recorded from Paddle 2.6.2 (prelu 'channel' with data_format NHWC)
