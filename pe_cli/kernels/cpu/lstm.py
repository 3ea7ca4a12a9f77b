"""CPU kernels of the LSTM ops (ops/lstm.py): dynamic_lstm by kernels/lstm_math.py over numpy (a numba
loop per step was tried: scalar exp and tanh, without SVML, made it slower than numpy's vectorized
ones); lstm_unit numpy, elementwise over [N, D]."""
import numpy as np

from .. import lstm_math
from ..common import seq_offsets


def _prepare(ins, attrs):
    x = np.ascontiguousarray(ins["Input"])
    return x, ins["Weight"], ins["Bias"], ins.get("H0"), ins.get("C0"), seq_offsets(attrs, "Input", x.shape[0])


def dynamic_lstm(ins, attrs):
    x, w, b, h0, c0, offs = _prepare(ins, attrs)
    hidden, cell, saved = lstm_math.forward(x, w, b, h0, c0, offs, attrs)
    return {"Hidden": hidden, "Cell": cell, "BatchGate": saved.reshape(len(x), -1)}


def dynamic_lstm_grad(ins, attrs):
    x, w, b, h0, c0, offs = _prepare(ins, attrs)
    if "BatchGate" in ins:        # the forward's saved gates: [T, 6D] laid out as [T, 6, D]
        cell, saved = ins["Cell"], ins["BatchGate"].reshape(len(x), 6, -1)
    else:
        _, cell, saved = lstm_math.forward(x, w, b, h0, c0, offs, attrs)
    dx, dw, db, (dh0, dc0) = lstm_math.backward(x, w, b, cell, saved, ins["Hidden@GRAD"], ins.get("Cell@GRAD"),
                                                offs, attrs, with_state=h0 is not None or c0 is not None)
    return {"Input@GRAD": dx, "Weight@GRAD": dw, "Bias@GRAD": db, "H0@GRAD": dh0, "C0@GRAD": dc0}


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
