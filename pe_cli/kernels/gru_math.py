"""The GRU's step (Fluid's gru and gru_unit ops) over numpy, for a batch of rows (gru_unit's CPU
kernel), and the layouts both devices share: Weight's two blocks; the per-row values the gru op's
backward pass reads ([T, 5D]: u, r, c, r h', h'), made into Fluid's batch-ordered BatchGate,
BatchResetHiddenPrev and BatchHidden and back (``fluid_batch``, ``saved_from_batch``). The gru op's
kernels run the same step per time step over the sequences still running (kernels/lstm_math.py's
schedule), two GEMMs each: kernels/cpu/_gru_loops.py, kernels/cuda/gru.py.

Gate order in Input and Bias is (update u, reset r, candidate c). Weight [D, 3D] is, as in
Fluid's memory, a [D, 2D] block (update and reset) followed by a [D, D] block (candidate):
  u, r = gate(x_ur + h' W_ur + b_ur),  c = cand(x_c + (r h') W_c + b_c)
  h = u c + (1 - u) h'  (origin_mode: h = u h' + (1 - u) c)."""

import numpy as np

from ..base.errors import PeError
from .lstm_math import PLAIN_ACTS, batch_index, previous_rows, previous_state, schedule


def acts(attrs, gate_key="gate_activation", cand_key="activation"):
    """(gate, candidate) activation pairs (forward, derivative from the output) of gru_unit (Fluid's
    plain sigmoid)."""
    try:
        return PLAIN_ACTS[attrs[gate_key]], PLAIN_ACTS[attrs[cand_key]]
    except KeyError as e:
        raise PeError(f"gru: activation {e.args[0]!r} is not one of {sorted(PLAIN_ACTS)}") from None


def split_weight(w):
    """Weight [D, 3D] as Fluid lays it out: (W_ur [D, 2D], W_c [D, D]), views of its memory."""
    d = w.shape[0]
    flat = np.ascontiguousarray(w).reshape(-1)
    return flat[: 2 * d * d].reshape(d, 2 * d), flat[2 * d * d :].reshape(d, d)


def step_forward(xg, hp, w_ur, w_c, bias, gate, cand, origin):
    """One step for rows xg [n, 3D] with previous hidden hp [n, D]: (gate [n, 3D] = u, r, c
    after activation; r * hp; h)."""
    d = hp.shape[1]
    g = xg + bias if bias is not None else np.array(xg)
    ur = gate(g[:, : 2 * d] + hp @ w_ur)
    u, r = ur[:, :d], ur[:, d:]
    rhp = r * hp
    c = cand(g[:, 2 * d :] + rhp @ w_c)
    h = u * hp + (1 - u) * c if origin else u * c + (1 - u) * hp
    return np.concatenate([ur, c], axis=1), rhp, h


def step_backward(gates, rhp, hp, dh, w_ur, w_c, dgate, dcand, origin, d_gates=None, d_rhp=None):
    """Gradients of one step from the hidden's gradient dh (and, for gru_unit, those of its Gate
    and ResetHiddenPrev outputs): (d pre-activation gates [n, 3D] (= dInput = the bias's rows),
    d hp [n, D], dW_ur, dW_c)."""
    d = hp.shape[1]
    u, r, c = gates[:, :d], gates[:, d : 2 * d], gates[:, 2 * d :]
    if origin:
        du, dc, dhp = dh * (hp - c), dh * (1 - u), dh * u
    else:
        du, dc, dhp = dh * (c - hp), dh * u, dh * (1 - u)
    dr = 0.0
    if d_gates is not None:
        du, dr, dc = du + d_gates[:, :d], d_gates[:, d : 2 * d], dc + d_gates[:, 2 * d :]
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


def unpack(batch_gate):
    """The gru op's BatchGate [T, 5D] as views: gates u, r, c [T, 3D]; r h' [T, D]; h' [T, D]."""
    d = batch_gate.shape[1] // 5
    return batch_gate[:, : 3 * d], batch_gate[:, 3 * d : 4 * d], batch_gate[:, 4 * d :]


def fluid_batch(saved, hidden, offs, is_reverse):
    """Fluid's BatchGate [T, 3D], BatchResetHiddenPrev [T, D] and BatchHidden [T, D], rows in batch order."""
    perm = batch_index(offs, is_reverse)
    gates, rhps, _ = unpack(saved)
    return {"BatchGate": gates[perm], "BatchResetHiddenPrev": rhps[perm], "BatchHidden": hidden[perm]}


def saved_from_batch(batch_gate, batch_rhp, hidden, h0, offs, is_reverse):
    """The per-row values [T, 5D] from Fluid's BatchGate and BatchResetHiddenPrev, Hidden and H0."""
    t, d = hidden.shape
    perm = batch_index(offs, is_reverse)
    saved = np.empty((t, 5 * d), hidden.dtype)
    saved[perm, : 3 * d], saved[perm, 3 * d : 4 * d] = batch_gate, batch_rhp
    prev, seq = previous_rows(offs, is_reverse)
    saved[:, 4 * d :] = previous_state(np.asarray(hidden), h0, prev, seq)
    return saved


def forward(xg, w, h0, offs, is_reverse, gate, cand, origin):
    """The gru op's recurrence over numpy (Fluid's fused ops' form, with their activations ``gate``,
    ``cand``): Hidden [T, D] of the projected, biased gates ``xg`` [T, 3D]."""
    d = w.shape[0]
    w_ur, w_c = split_weight(w)
    hidden = np.empty((len(xg), d), xg.dtype)
    h_state = np.zeros((len(offs) - 1, d), xg.dtype) if h0 is None else np.array(h0, dtype=xg.dtype)
    for live, rows in schedule(offs, is_reverse):
        h = step_forward(xg[rows], h_state[live], w_ur, w_c, None, gate, cand, origin)[2]
        hidden[rows], h_state[live] = h, h
    return hidden
