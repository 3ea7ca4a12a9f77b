"""The GRU's recurrence (Fluid's gru and gru_unit ops), written once over numpy: one step over a
batch of rows (gru_unit is one step; gru runs it per time step over the sequences still running,
in the length order of kernels/lstm_math.py's schedule, so each step is two GEMMs).

Gate order in Input and Bias is (update u, reset r, candidate c). Weight [D, 3D] is, as in
Fluid's memory, a [D, 2D] block (update and reset) followed by a [D, D] block (candidate):
  u, r = gate(x_ur + h' W_ur + b_ur),  c = cand(x_c + (r h') W_c + b_c)
  h = u c + (1 - u) h'  (origin_mode: h = u h' + (1 - u) c)."""
import numpy as np

from ..errors import PeError
from .lstm_math import ACTS, schedule


def acts(attrs, gate_key="gate_activation", cand_key="activation"):
    """(gate, candidate) activation pairs (forward, derivative from the output)."""
    try:
        return ACTS[attrs[gate_key]], ACTS[attrs[cand_key]]
    except KeyError as e:
        raise PeError(f"gru: activation {e.args[0]!r} is not one of {sorted(ACTS)}") from None


def split_weight(w):
    """Weight [D, 3D] as Fluid lays it out: (W_ur [D, 2D], W_c [D, D]), views of its memory."""
    d = w.shape[0]
    flat = np.ascontiguousarray(w).reshape(-1)
    return flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)


def step_forward(xg, hp, w_ur, w_c, bias, gate, cand, origin):
    """One step for rows xg [n, 3D] with previous hidden hp [n, D]: (gate [n, 3D] = u, r, c
    after activation; r * hp; h)."""
    d = hp.shape[1]
    g = xg + bias if bias is not None else np.array(xg)
    ur = gate(g[:, :2 * d] + hp @ w_ur)
    u, r = ur[:, :d], ur[:, d:]
    rhp = r * hp
    c = cand(g[:, 2 * d:] + rhp @ w_c)
    h = u * hp + (1 - u) * c if origin else u * c + (1 - u) * hp
    return np.concatenate([ur, c], axis=1), rhp, h


def step_backward(gates, rhp, hp, dh, w_ur, w_c, dgate, dcand, origin, d_gates=None, d_rhp=None):
    """Gradients of one step from the hidden's gradient dh (and, for gru_unit, those of its Gate
    and ResetHiddenPrev outputs): (d pre-activation gates [n, 3D] (= dInput = the bias's rows),
    d hp [n, D], dW_ur, dW_c)."""
    d = hp.shape[1]
    u, r, c = gates[:, :d], gates[:, d:2 * d], gates[:, 2 * d:]
    if origin:
        du, dc, dhp = dh * (hp - c), dh * (1 - u), dh * u
    else:
        du, dc, dhp = dh * (c - hp), dh * u, dh * (1 - u)
    dr = 0.0
    if d_gates is not None:
        du, dr, dc = du + d_gates[:, :d], d_gates[:, d:2 * d], dc + d_gates[:, 2 * d:]
    dgc = dc * dcand(c)
    drhp = dgc @ w_c.T
    if d_rhp is not None:
        drhp = drhp + d_rhp
    dgur = np.concatenate([du * dgate(u), (drhp * hp + dr) * dgate(r)], axis=1)
    dhp = dhp + drhp * r + dgur @ w_ur.T
    return np.concatenate([dgur, dgc], axis=1), dhp, hp.T @ dgur, rhp.T @ dgc


def join_weight(dw_ur, dw_c):
    """The inverse of split_weight for gradients: [D, 3D] in Fluid's memory layout."""
    d = dw_c.shape[0]
    return np.concatenate([dw_ur.reshape(-1), dw_c.reshape(-1)]).reshape(d, 3 * d)


def forward(x, w, b, h0, offs, attrs):
    """Hidden [T, D] and, per row, what the backward pass reads: gates [T, 3D], r * h' and h'."""
    (gate, _), (cand, _) = acts(attrs)
    d = w.shape[0]
    w_ur, w_c = split_weight(w)
    bias = None if b is None else b.reshape(-1)
    h_state = np.zeros((len(offs) - 1, d), x.dtype) if h0 is None else np.array(h0, dtype=x.dtype)
    hidden = np.empty((len(x), d), x.dtype)
    gates, rhps, hps = np.empty((len(x), 3 * d), x.dtype), np.empty_like(hidden), np.empty_like(hidden)
    for live, rows in schedule(offs, attrs["is_reverse"]):
        hp = h_state[live]
        g, rhp, h = step_forward(x[rows], hp, w_ur, w_c, bias, gate, cand, attrs["origin_mode"])
        hidden[rows], gates[rows], rhps[rows], hps[rows] = h, g, rhp, hp
        h_state[live] = h
    return hidden, (gates, rhps, hps)


def pack(saved):
    """The saved values as one [T, 5D] array (the op's BatchGate: u, r, c, r * h', h' per row)."""
    return np.concatenate(saved, axis=1)


def unpack(batch_gate):
    d = batch_gate.shape[1] // 5
    return batch_gate[:, :3 * d], batch_gate[:, 3 * d:4 * d], batch_gate[:, 4 * d:]


def backward(x, w, saved, d_hidden, offs, attrs):
    """Gradients of Input, Weight, Bias (a [3D] row) and H0 from Hidden's gradient."""
    (_, dgate), (_, dcand) = acts(attrs)
    d = w.shape[0]
    w_ur, w_c = split_weight(w)
    gates, rhps, hps = saved
    dx = np.zeros_like(x)
    dw_ur, dw_c = np.zeros_like(w_ur), np.zeros_like(w_c)
    dh_state = np.zeros((len(offs) - 1, d), x.dtype)
    for live, rows in reversed(schedule(offs, attrs["is_reverse"])):
        dh = d_hidden[rows] + dh_state[live]
        dg, dhp, dwur, dwc = step_backward(gates[rows], rhps[rows], hps[rows], dh, w_ur, w_c, dgate, dcand,
                                           attrs["origin_mode"])
        dx[rows] = dg
        dw_ur += dwur
        dw_c += dwc
        dh_state[live] = dhp
    return dx, join_weight(dw_ur, dw_c), dx.sum(0), dh_state
