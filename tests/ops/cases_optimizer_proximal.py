"""Op cases for the proximal updates (ops/optimizer_proximal.py) against numpy written from Fluid 1.8's
kernels. Updates have no gradient."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(29)
_P, _G, _M = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.uniform(0.1, 1.0, size=(3, 4))
_P[0, 0] = 0.01  # shrunk to exactly 0 by l1


def _prox(prox, lr, a):
    if a["l1"] > 0:
        return np.sign(prox) * np.maximum(np.abs(prox) - lr * a["l1"], 0) / (1 + lr * a["l2"])
    return prox / (1 + lr * a["l2"])


CASES = [
    OpCase(
        "proximal_gd",
        {"Param": _P, "Grad": _G, "LearningRate": np.array([0.1])},
        lambda i, a: {"ParamOut": _prox(_P - 0.1 * _G, 0.1, a)},
        attrs={"l1": 0.5, "l2": 0.2},
    ),
    OpCase(
        "proximal_gd",
        {"Param": _P, "Grad": _G, "LearningRate": np.array([0.1])},
        lambda i, a: {"ParamOut": _prox(_P - 0.1 * _G, 0.1, a)},
        attrs={"l2": 0.3},
        name="proximal_gd_l2",
    ),
    OpCase(
        "proximal_adagrad",
        {"Param": _P, "Moment": _M, "Grad": _G, "LearningRate": np.array([0.1])},
        lambda i, a: {"ParamOut": _prox(_P - 0.1 * _G / np.sqrt(_M + _G * _G), 0.1, a), "MomentOut": _M + _G * _G},
        attrs={"l1": 0.5, "l2": 0.2},
    ),
]
