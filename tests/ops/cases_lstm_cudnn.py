"""Op cases for cudnn_lstm (ops/lstm_cudnn.py) against a numpy LSTM of cuDNN's equations and weight
layout (as Paddle's test_lstm_cudnn_op.py writes them for one layer), here two layers in both
directions; float64 finite differences for the gradients of Input, W, InitH and InitC."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(79)
T, B, IN, H = 3, 2, 2, 2


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _weights(w, layers, dirs):
    mats, off = [], 0
    for layer in range(layers):
        size = IN if layer == 0 else H * dirs
        for _ in range(dirs):
            mats.append([w[off : off + 4 * H * size].reshape(4 * H, size)])
            off += 4 * H * size
            mats[-1].append(w[off : off + 4 * H * H].reshape(4 * H, H))
            off += 4 * H * H
    for m in mats:
        m += [w[off : off + 4 * H], w[off + 4 * H : off + 8 * H]]
        off += 8 * H
    assert off == w.size
    return mats


def cudnn_lstm_ref(i, a):
    dirs = 2 if a["is_bidirec"] else 1
    mats = _weights(i["W"], a["num_layers"], dirs)
    x, last_h, last_c = i["Input"], np.zeros_like(i["InitH"]), np.zeros_like(i["InitC"])
    for layer in range(a["num_layers"]):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w_ih, w_hh, b_ih, b_hh = mats[k]
            h, c, out = i["InitH"][k], i["InitC"][k], np.zeros((T, B, H))
            for t in range(T - 1, -1, -1) if d else range(T):
                g = x[t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh
                c = _sig(g[:, H : 2 * H]) * c + _sig(g[:, :H]) * np.tanh(g[:, 2 * H : 3 * H])
                h = out[t] = _sig(g[:, 3 * H :]) * np.tanh(c)
            last_h[k], last_c[k] = h, c
            outs.append(out)
        x = np.concatenate(outs, axis=2)
    return {"Out": x, "last_h": last_h, "last_c": last_c}


def _case(layers, bidirec, name, grad=()):
    dirs = 2 if bidirec else 1
    size = sum(dirs * 4 * H * ((IN if layer == 0 else H * dirs) + H) for layer in range(layers)) + layers * dirs * 8 * H
    inputs = {
        "Input": rng.normal(size=(T, B, IN)),
        "InitH": rng.normal(size=(layers * dirs, B, H)),
        "InitC": rng.normal(size=(layers * dirs, B, H)),
        "W": rng.normal(size=(size,)) * 0.5,
    }
    if grad:  # Fluid's Cache (cuDNN's dropout states; no values pe reads), passed to the gradient as Fluid does
        inputs["Cache"] = np.zeros(1, np.uint8)
    return OpCase(
        "cudnn_lstm",
        inputs,
        cudnn_lstm_ref,
        name=name,
        grad=grad,
        grad_rtol=1e-4,
        grad_atol=1e-6,
        attrs={"num_layers": layers, "is_bidirec": bidirec, "hidden_size": H, "input_size": IN, "max_len": T},
    )


CASES = [
    _case(1, False, "cudnn_lstm"),
    _case(2, True, "cudnn_lstm_two_layers_bidirectional", grad=("Input", "W", "InitH", "InitC")),
]
