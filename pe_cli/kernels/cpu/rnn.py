"""Kernels of Paddle 2.x's rnn op (pe_cli/ops/rnn.py): LSTM (gates i, f, g, o), GRU (gates r, z, n, the reset
applied to h W_hh^T + b_hh) and simple RNN (tanh, relu) over a time-major padded batch, layers stacked,
directions concatenated, each sequence's steps past its length leaving the state as it was and the output 0
(a reversed direction starts at the sequence's last step). The gradient runs the forward again and walks the
steps back (numpy: correct, not fast). Structured (meta rules: shapes/rnn.py, which refuse what these would not
compute): fresh variants, each output the array the walk makes handed over (kernels/structured.fresh_kernel)."""

import numpy as np

from ...shapes import rnn as rules
from ..structured import adapter, fresh_kernel


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _step(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One cell step: (h', c', cache for the gradient)."""
    xg = x @ w_ih.T + b_ih
    hg = h @ w_hh.T + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(xg + hg, 4, axis=1)
        i, f, g, o = _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
        c2 = f * c + i * g
        tc = np.tanh(c2)
        return o * tc, c2, (i, f, g, o, tc)
    if mode == "GRU":
        xr, xz, xn = np.split(xg, 3, axis=1)
        hr, hz, hn = np.split(hg, 3, axis=1)
        r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
        n = np.tanh(xn + r * hn)
        return (1 - z) * n + z * h, c, (r, z, n, hn)
    a = xg + hg
    h2 = np.tanh(a) if mode == "RNN_TANH" else np.maximum(a, 0)
    return h2, c, (a, h2)


def _step_grad(mode, dh2, dc2, x, h, c, w_ih, w_hh, cache):
    """(dxg, dhg, dh from the cell's own use of h, dc): the gradients of one step's pre-activations."""
    if mode == "LSTM":
        i, f, g, o, tc = cache
        dc = dc2 + dh2 * o * (1 - tc * tc)
        da = np.concatenate(
            [dc * g * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - g * g), dh2 * tc * o * (1 - o)], axis=1
        )
        return da, da, 0, dc * f
    if mode == "GRU":
        r, z, n, hn = cache
        dan = dh2 * (1 - z) * (1 - n * n)
        dar = dan * hn * r * (1 - r)
        daz = dh2 * (h - n) * z * (1 - z)
        return (np.concatenate([dar, daz, dan], axis=1), np.concatenate([dar, daz, dan * r], axis=1), dh2 * z, dc2)
    a, h2 = cache
    da = dh2 * ((1 - h2 * h2) if mode == "RNN_TANH" else (a > 0))
    return da, da, 0, dc2


def _order(T, reverse):
    return range(T - 1, -1, -1) if reverse else range(T)


def _run_direction(mode, x, h, c, weights, mask, reverse, keep=False):
    """(outputs [T, N, H], last h, last c, the steps' records for the gradient)."""
    T = x.shape[0]
    out = np.zeros((T,) + h.shape, x.dtype)
    steps = []
    for t in _order(T, reverse):
        h2, c2, cache = _step(mode, x[t], h, c, *weights)
        m = mask[t]
        if keep:
            steps.append((t, h, c, cache))
        out[t] = np.where(m, h2, 0)
        h, c = np.where(m, h2, h), np.where(m, c2, c)
    return out, h, c, steps


def _layout(ins, attrs):
    x = ins["Input"]
    T, N = x.shape[0], x.shape[1]
    mode = attrs["mode"]  # (one the meta rule took)
    lengths = ins.get("SequenceLength")
    lengths = np.full(N, T) if lengths is None else np.asarray(lengths).reshape(-1)
    mask = (np.arange(T)[:, None] < lengths[None, :])[:, :, None]  # [T, N, 1]
    dirs = 2 if attrs["is_bidirec"] else 1
    return x, mode, mask, dirs


def _weights(ws, layer, d, dirs, num_layers):
    k = layer * dirs + d
    base = 2 * num_layers * dirs
    return ws[2 * k], ws[2 * k + 1], ws[base + 2 * k], ws[base + 2 * k + 1]


def _forward(ins, attrs, keep=False):
    x, mode, mask, dirs = _layout(ins, attrs)
    states, ws, L = ins["PreState"], ins["WeightList"], attrs["num_layers"]
    h0, c0 = states[0], (states[1] if mode == "LSTM" else np.zeros_like(states[0]))
    last_h, last_c, records, layer_in = [], [], [], x
    for layer in range(L):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            out, h, c, steps = _run_direction(
                mode, layer_in, h0[k], c0[k], _weights(ws, layer, d, dirs, L), mask, d == 1, keep
            )
            outs.append(out)
            last_h.append(h)
            last_c.append(c)
            records.append((layer_in, steps))
        layer_in = np.concatenate(outs, axis=2) if dirs == 2 else outs[0]
    return layer_in, np.stack(last_h), np.stack(last_c), records, mask, mode, dirs


def _rnn_arrays(ins, attrs):
    out, h, c, _, _, mode, _ = _forward(ins, attrs)
    states = [h.astype(out.dtype), c.astype(out.dtype)] if mode == "LSTM" else [h.astype(out.dtype)]
    return {"Out": out, "State": states, "Reserve": np.zeros((0,), out.dtype), "DropoutState": np.zeros((0,), np.uint8)}


def _direction_grad(mode, layer_in, steps, weights, mask, dout, dh, dc):
    w_ih, w_hh = weights[0], weights[1]
    dx = np.zeros_like(layer_in)
    dw = [np.zeros_like(w) for w in weights]
    for t, h, c, cache in reversed(steps):
        m = mask[t]
        dh2 = np.where(m, dh + dout[t], 0)
        dc2 = np.where(m, dc, 0)
        dxg, dhg, dh_cell, dc_prev = _step_grad(mode, dh2, dc2, layer_in[t], h, c, w_ih, w_hh, cache)
        dx[t] = dxg @ w_ih
        dw[0] += dxg.T @ layer_in[t]
        dw[1] += dhg.T @ h
        dw[2] += dxg.sum(axis=0)
        dw[3] += dhg.sum(axis=0)
        dh = np.where(m, dhg @ w_hh + dh_cell, dh)
        dc = np.where(m, dc_prev, dc)
    return dx, dh, dc, dw


def _rnn_grad_arrays(ins, attrs):
    out, _, _, records, mask, mode, dirs = _forward(ins, attrs, keep=True)
    ws, L = ins["WeightList"], attrs["num_layers"]
    dout = ins.get("Out@GRAD")
    dout = np.zeros_like(out) if dout is None else dout
    dstates = ins.get("State@GRAD") or []
    zero = np.zeros((L * dirs,) + out.shape[1:2] + (attrs["hidden_size"],), out.dtype)
    dh_last = dstates[0] if len(dstates) > 0 and dstates[0] is not None else zero
    dc_last = dstates[1] if mode == "LSTM" and len(dstates) > 1 and dstates[1] is not None else zero
    dws = [np.zeros_like(w) for w in ws]
    dh0, dc0 = np.zeros_like(zero), np.zeros_like(zero)
    H = attrs["hidden_size"]
    for layer in range(L - 1, -1, -1):
        dx_layer = 0
        for d in range(dirs):
            k = layer * dirs + d
            layer_in, steps = records[k]
            part = dout[:, :, d * H : (d + 1) * H]
            weights = _weights(ws, layer, d, dirs, L)
            dx, dh, dc, dw = _direction_grad(mode, layer_in, steps, weights, mask, part, dh_last[k], dc_last[k])
            dx_layer = dx_layer + dx
            dh0[k], dc0[k] = dh, dc
            base = 2 * L * dirs
            for slot, g in zip((2 * k, 2 * k + 1, base + 2 * k, base + 2 * k + 1), dw):
                dws[slot] += g
        dout = dx_layer
    states = [dh0, dc0] if mode == "LSTM" else [dh0]
    return {"Input@GRAD": dout.astype(out.dtype, copy=False), "PreState@GRAD": states, "WeightList@GRAD": dws}


rnn_out = fresh_kernel(_rnn_arrays, "rnn_out")
rnn_grad_out = fresh_kernel(_rnn_grad_arrays, "rnn_grad_out")
# the ops' kernels by name: CUDA's host fallbacks run them (kernels/cuda/rnn.py's HOST_OPS)
rnn = adapter(rules.rnn_meta, rnn_out, "rnn")
rnn_grad = adapter(rules.rnn_grad_meta, rnn_grad_out, "rnn_grad")
