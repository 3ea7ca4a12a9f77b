"""CPU kernels of ops/lstm_unit.py (numpy, elementwise over [N, D])."""
import numpy as np

from .. import lstm_math


def _unit_gates(x, forget_bias):
    d = x.shape[1] // 4
    sig = lstm_math.ACTS["sigmoid"][0]
    return sig(x[:, :d]), sig(x[:, d:2 * d] + forget_bias), sig(x[:, 2 * d:3 * d]), np.tanh(x[:, 3 * d:])


def lstm_unit(ins, attrs):
    i, f, o, j = _unit_gates(ins["X"], attrs["forget_bias"])
    c = f * ins["C_prev"] + i * j
    return {"C": c, "H": o * np.tanh(c)}


def lstm_unit_grad(ins, attrs):
    cp = ins["C_prev"]
    i, f, o, j = _unit_gates(ins["X"], attrs["forget_bias"])
    tc = np.tanh(ins["C"])
    dh = ins["H@GRAD"]
    dc = ins["C@GRAD"] + dh * o * (1 - tc * tc)
    dx = np.concatenate([dc * j * i * (1 - i), dc * cp * f * (1 - f), dh * tc * o * (1 - o), dc * i * (1 - j * j)],
                        axis=1)
    return {"X@GRAD": dx, "C_prev@GRAD": dc * f}
