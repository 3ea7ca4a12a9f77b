"""CPU out-kernels of ops/lstm_cudnn.py (meta rules: shapes/recurrent.py; fresh variants, fresh_outputs): each layer and direction of cudnn_lstm is one run of the lstm op's
kernels (kernels/cpu/lstm.py; their sigmoid clips its input to [-40, 13] as Fluid's CPU LSTMs do, which
cuDNN's does not: below 2.3e-6 apart where a gate's input passes 13) over the batch's sequences, the
input projection x W_ih^T + b_ih + b_hh one GEMM before it and cuDNN's gate order (i, f, g, o) mapped
onto the lstm op's (candidate, input, forget, output)."""

import numpy as np

from ...base.errors import PeError
from ...shapes import recurrent as rules
from ..structured import adapter, fresh_outputs
from . import lstm as _lstm

_TO_LSTM = (2, 0, 1, 3)  # cuDNN's gate blocks i, f, g, o -> the lstm op's g, i, f, o
_LSTM_ATTRS = {
    "use_peepholes": False,
    "gate_activation": "sigmoid",
    "cell_activation": "tanh",
    "candidate_activation": "tanh",
}


def unpack(w, input_size, hidden, num_layers, dirs):
    """Per layer and direction (l * dirs + d): (W_ih [4H, in], W_hh [4H, H], b_ih, b_hh [4H]), views of
    the flat W in cuDNN's layout: every W_ih, W_hh first, then every b_ih, b_hh."""
    w = np.asarray(w).reshape(-1)
    mats, off = [], 0
    for layer in range(num_layers):
        size = input_size if layer == 0 else hidden * dirs
        for _ in range(dirs):
            w_ih = w[off : off + 4 * hidden * size].reshape(4 * hidden, size)
            off += 4 * hidden * size
            mats.append([w_ih, w[off : off + 4 * hidden * hidden].reshape(4 * hidden, hidden)])
            off += 4 * hidden * hidden
    for m in mats:
        m += [w[off : off + 4 * hidden], w[off + 4 * hidden : off + 8 * hidden]]
        off += 8 * hidden
    if off != w.size:
        raise PeError(
            f"W holds {w.size} values; {num_layers} layer(s) of hidden size {hidden} over inputs of "
            f"{input_size} need {off} (cuDNN's layout)"
        )
    return mats


def _blocks(a, hidden, order):
    """``a``'s 4 gate blocks of ``hidden`` along the last axis, in ``order``."""
    return np.concatenate([a[..., k * hidden : (k + 1) * hidden] for k in order], axis=-1)


def _setup(ins, attrs):
    x = np.asarray(ins["Input"])
    if attrs["dropout_prob"] > 0 and not attrs["is_test"] and attrs["num_layers"] > 1:
        raise PeError(
            f"dropout_prob={attrs['dropout_prob']} between layers while training is cuDNN's random "
            f"stream, which pe cannot reproduce; set is_test, or dropout_prob=0"
        )
    seq, batch, _ = x.shape
    hidden, dirs = attrs["hidden_size"], 2 if attrs["is_bidirec"] else 1
    mats = unpack(ins["W"], x.shape[2], hidden, attrs["num_layers"], dirs)
    offs = np.arange(batch + 1, dtype=np.int64) * seq  # each batch row one sequence of seq steps
    return x, mats, offs, hidden, dirs


def _run(rows_in, mats_k, h0, c0, offs, reverse):
    """One layer and direction over ``rows_in`` [batch * seq, in] (batch-major): the lstm op's
    (hidden, cell, saved) and its inputs (gates before activation, Weight, Bias)."""
    w_ih, w_hh, b_ih, b_hh = mats_k
    hidden = w_hh.shape[1]
    gates = _blocks(rows_in @ w_ih.T + (b_ih + b_hh), hidden, _TO_LSTM).astype(rows_in.dtype, copy=False)
    weight = np.ascontiguousarray(_blocks(w_hh.T, hidden, _TO_LSTM))
    bias = np.zeros((1, 4 * hidden), rows_in.dtype)
    attrs = dict(_LSTM_ATTRS, is_reverse=reverse)
    out = _lstm._forward(np.ascontiguousarray(gates), weight, bias, h0, c0, offs, attrs)
    return out, (gates, weight, bias, attrs)


def _forward_layers(x, mats, offs, hidden, dirs, init_h, init_c):
    seq, batch = x.shape[:2]
    rows = np.ascontiguousarray(x.transpose(1, 0, 2).reshape(batch * seq, -1))
    last = (seq - 1) + np.arange(batch) * seq  # each sequence's last row, its first: - (seq - 1)
    last_h, last_c, runs = np.empty_like(init_h), np.empty_like(init_c), []
    for layer in range(len(mats) // dirs):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            (h, c, saved), inputs = _run(rows, mats[k], init_h[k], init_c[k], offs, d == 1)
            end = last - (seq - 1) if d == 1 else last
            last_h[k], last_c[k] = h[end], c[end]
            outs.append(h)
            runs.append((rows, h, c, saved, inputs))
        rows = np.concatenate(outs, axis=1) if dirs == 2 else outs[0]
    return rows, last_h, last_c, runs


def cudnn_lstm_out(ins, outs, attrs, meta):
    x, mats, offs, hidden, dirs = _setup(ins, attrs)
    init_h, init_c = (np.asarray(ins[s], dtype=x.dtype) for s in ("InitH", "InitC"))
    rows, last_h, last_c, _ = _forward_layers(x, mats, offs, hidden, dirs, init_h, init_c)
    seq, batch = x.shape[:2]
    results = {"Out": rows.reshape(batch, seq, -1).transpose(1, 0, 2).copy(), "last_h": last_h, "last_c": last_c}
    fresh_outputs(results, ins, outs, meta)


def _row_grad(value, like, seq, batch):
    """A time-major [seq, batch, w] gradient (or None: zeros) as batch-major rows."""
    if value is None:
        return np.zeros_like(like)
    return np.ascontiguousarray(np.asarray(value, like.dtype).transpose(1, 0, 2).reshape(batch * seq, -1))


def cudnn_lstm_grad_out(ins, outs, attrs, meta):
    x, mats, offs, hidden, dirs = _setup(ins, attrs)
    seq, batch = x.shape[:2]
    init_h, init_c = (np.asarray(ins[s], dtype=x.dtype) for s in ("InitH", "InitC"))
    rows, _, _, runs = _forward_layers(x, mats, offs, hidden, dirs, init_h, init_c)
    d_rows = _row_grad(ins.get("Out@GRAD"), rows, seq, batch)
    d_last_h, d_last_c = (
        np.zeros_like(init_h) if ins.get(s) is None else np.asarray(ins[s], x.dtype)
        for s in ("last_h@GRAD", "last_c@GRAD")
    )
    last = (seq - 1) + np.arange(batch) * seq
    dw = [None] * len(mats)
    d_init_h, d_init_c = np.zeros_like(init_h), np.zeros_like(init_c)
    for layer in reversed(range(len(mats) // dirs)):
        d_in = 0
        for d in range(dirs):
            k = layer * dirs + d
            rows_in, h, c, saved, (gates, weight, bias, lstm_attrs) = runs[k]
            d_h = np.array(d_rows[:, d * hidden : (d + 1) * hidden])
            d_c = np.zeros_like(d_h)
            end = last - (seq - 1) if d == 1 else last
            d_h[end] += d_last_h[k]
            d_c[end] += d_last_c[k]
            dg, dwh, _, (d_init_h[k], d_init_c[k]) = _lstm._backward(
                gates, weight, bias, c, saved, d_h, d_c, offs, lstm_attrs, with_state=True
            )
            dg = _blocks(dg, hidden, (1, 2, 0, 3))  # back to cuDNN's i, f, g, o
            db = dg.sum(0)
            dw[k] = [dg.T @ rows_in, _blocks(dwh, hidden, (1, 2, 0, 3)).T, db, db]
            d_in = d_in + dg @ mats[k][0]
        d_rows = d_in
    flat = [m for k in range(len(mats)) for m in dw[k][:2]] + [b for k in range(len(mats)) for b in dw[k][2:]]
    results = {
        "Input@GRAD": np.asarray(d_rows).reshape(batch, seq, -1).transpose(1, 0, 2).copy(),
        "W@GRAD": np.concatenate([np.ravel(m) for m in flat]).reshape(np.shape(ins["W"])).astype(x.dtype),
        "InitH@GRAD": d_init_h,
        "InitC@GRAD": d_init_c,
    }
    fresh_outputs(results, ins, outs, meta)


# the ops' kernels by name, the two above: CUDA's host fallbacks run them (kernels/cuda/lstm_cudnn.py's HOST_OPS)
cudnn_lstm = adapter(rules.cudnn_lstm_meta, cudnn_lstm_out, "cudnn_lstm")
cudnn_lstm_grad = adapter(rules.cudnn_lstm_grad_meta, cudnn_lstm_grad_out, "cudnn_lstm_grad")
