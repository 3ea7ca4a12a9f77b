"""Op cases for the activation table's math and shaped activations: pow, floor/ceil/round, the
trigonometric and hyperbolic functions, selu, stanh, brelu, soft_relu, thresholded_relu,
hard_shrink, tanh_shrink, hard_swish, softshrink. References are written here in numpy from Fluid's
formulas (erf from math.erf)."""

import numpy as np

from op_test import OpCase
from tests.ops.cases_activation import _erf, pos, r, unary


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _off_half(x):
    """x kept away from integers and halves (floor, ceil and round jump there)."""
    frac = x - np.floor(x)
    return np.where(np.abs(frac - 0.5) < 0.1, x + 0.2, np.where((frac < 0.1) | (frac > 0.9), x + 0.3, x))


_SOFT_X = np.array([-3.0, -1.0, 1.9, 2.5])
CASES = [
    unary("pow", lambda x, a: x**3.0, r(3, 4), attrs={"factor": 3.0}),
    unary("pow", lambda x, a: x**0.5, pos(3, 4), name="pow_sqrt", attrs={"factor": 0.5}),
    unary("pow", lambda x, a: x, r(2, 3), name="pow_default"),
    unary("floor", lambda x, a: np.floor(x), _off_half(r(3, 4, low=-3, high=3))),
    unary("ceil", lambda x, a: np.ceil(x), _off_half(r(3, 4, low=-3, high=3))),
    unary(
        "round",
        lambda x, a: np.array([[-2.0, -1.0, -0.0, 0.0, 1.0, 3.0]]),
        np.array([[-2.4, -0.5, -0.4, 0.4, 0.5, 2.5]]),
        name="round_halves_away_from_zero",
        grad=False,
    ),
    unary("round", lambda x, a: np.sign(x) * np.floor(np.abs(x) + 0.5), _off_half(r(3, 4, low=-3, high=3))),
    unary("erf", lambda x, a: _erf(x), r(3, 4, low=-2, high=2)),
    unary("cos", lambda x, a: np.cos(x), r(3, 4)),
    unary("sin", lambda x, a: np.sin(x), r(3, 4)),
    unary("acos", lambda x, a: np.arccos(x), r(3, 4, low=-0.9, high=0.9)),
    unary("asin", lambda x, a: np.arcsin(x), r(3, 4, low=-0.9, high=0.9)),
    unary("atan", lambda x, a: np.arctan(x), r(3, 4)),
    unary("cosh", lambda x, a: np.cosh(x), r(3, 4)),
    unary("sinh", lambda x, a: np.sinh(x), r(3, 4)),
    unary(
        "selu",
        lambda x, a: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1)),
        r(3, 4, gap=0.05),
    ),
    unary(
        "selu",
        lambda x, a: 2.0 * np.where(x > 0, x, 0.5 * (np.exp(x) - 1)),
        r(3, 4, gap=0.05),
        name="selu_attrs",
        attrs={"scale": 2.0, "alpha": 0.5},
    ),
    unary("stanh", lambda x, a: 1.7159 * np.tanh(0.67 * x), r(3, 4)),
    unary(
        "brelu",
        lambda x, a: np.clip(x, 1.0, 3.0),
        np.array([[-1.0, 0.5, 1.5, 2.0], [2.9, 3.5, 5.0, 1.2]]),
        attrs={"t_min": 1.0, "t_max": 3.0},
    ),
    unary(
        "soft_relu",
        lambda x, a: np.log1p(np.exp(np.clip(x, -2.0, 2.0))),
        np.array([[-1.7, -1.5, -0.2, 0.4], [1.1, 1.5, 2.5, 4.0]]),
        attrs={"threshold": 2.0},
    ),
    # Fluid's gradient, from Out: Out@GRAD (1 - e^-Out) where -threshold < Out < threshold, which is not X's
    # clip: at X = -3 it is sigmoid(-3) = 0.119 (the loss does not move), at X = 1.9 it is 0 (the loss moves
    # 0.87): checked on Fluid 1.8.5, docs/COMPAT.md
    OpCase(
        "soft_relu_grad",
        {"Out": np.log1p(np.exp(np.clip(_SOFT_X, -2.0, 2.0))), "Out@GRAD": np.ones(4)},
        lambda i, a: {"X@GRAD": (1 - np.exp(-i["Out"])) * (i["Out"] < 2.0)},
        attrs={"threshold": 2.0},
        name="soft_relu_grad_as_fluid",
    ),
    unary(
        "thresholded_relu",
        lambda x, a: np.where(x > 1.0, x, 0),
        np.array([[-2.0, 0.3, 0.8, 1.3], [1.7, 2.5, -0.4, 3.0]]),
    ),
    unary(
        "hard_shrink",
        lambda x, a: np.where(np.abs(x) > 0.5, x, 0),
        np.array([[-2.0, -0.7, -0.3, 0.1], [0.4, 0.6, 1.5, -1.1]]),
    ),
    unary("tanh_shrink", lambda x, a: x - np.tanh(x), r(3, 4)),
    # Fluid's hard_swish_op and softshrink_op formulas; values away from the kinks for the differences
    unary(
        "hard_swish",
        lambda x, a: x * np.minimum(np.maximum(x + 3, 0), 6) / 6,
        np.array([[-4.0, -3.5, -2.0, -0.4], [0.7, 2.5, 3.4, 5.0]]),
    ),
    unary(
        "hard_swish",
        lambda x, a: x * np.minimum(np.maximum(x + 1, 0), 2) / 4,
        np.array([[-2.0, -0.5, 0.3], [0.8, 1.5, 3.0]]),
        name="hard_swish_attrs",
        attrs={"threshold": 2.0, "scale": 4.0, "offset": 1.0},
    ),
    unary(
        "softshrink",
        lambda x, a: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0)),
        np.array([[-2.0, -0.7, -0.3, 0.0], [0.2, 0.45, 0.9, 3.0]]),
    ),
    unary(
        "softshrink",
        lambda x, a: np.where(x > 1.2, x - 1.2, np.where(x < -1.2, x + 1.2, 0)),
        np.array([[-2.0, -1.0, 0.5], [1.1, 1.3, 4.0]]),
        name="softshrink_lambda",
        attrs={"lambda": 1.2},
    ),
]
