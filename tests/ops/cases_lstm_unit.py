"""Op cases for lstm_unit: Fluid's formula in numpy (X split into i, f, o, candidate; forget_bias
added to f), with float64 finite-difference gradients of X and C_prev."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(15)
D = 3


def _sig(x):
    return 1 / (1 + np.exp(-x))


def lstm_unit_ref(i, a):
    gi, gf, go, gj = np.split(i["X"], 4, axis=1)
    c = _sig(gf + a["forget_bias"]) * i["C_prev"] + _sig(gi) * np.tanh(gj)
    return {"C": c, "H": _sig(go) * np.tanh(c)}


CASES = [
    OpCase("lstm_unit", {"X": rng.normal(size=(5, 4 * D)), "C_prev": rng.normal(size=(5, D))}, lstm_unit_ref,
           grad=("X", "C_prev"), name="lstm_unit"),
    OpCase("lstm_unit", {"X": rng.normal(size=(2, 4 * D)), "C_prev": rng.normal(size=(2, D))}, lstm_unit_ref,
           attrs={"forget_bias": 1.0}, grad=("X", "C_prev"), name="lstm_unit_forget_bias"),
]
