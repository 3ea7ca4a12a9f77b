"""dynamic_lstmp's recurrence (Fluid's lstmp op: an LSTM whose recurrent state is a projection of
its hidden state), over numpy, in kernels/lstm_math.py's length-ordered schedule (per time step
one GEMM for the gates over the live sequences, one for the projection). Gate order and peepholes
are dynamic_lstm's; per step, with r' the previous projection [n, P]:
  g = x + r' W + b;  c = clip(f c' + i cand(g_c), cell_clip);  h = o cell(c)
  r = clip(proj(h W_proj), proj_clip)      (a clip of 0 is no clip).
As Fluid 1.8.5's lstmp kernels (forward and backward), proj is cell_activation unless
proj_activation is identity (the attribute only says whether there is an activation). The op's
BatchGate, BatchCellPreAct and BatchHidden are Fluid's, in Fluid's batch order (``fluid_batch``)."""

import numpy as np

from ..base.errors import PeError
from .lstm_math import ACTS, PLAIN_ACTS, batch_index, cell_grads, schedule

_NAMES = ("gate_activation", "cell_activation", "candidate_activation", "proj_activation")


def _acts(attrs):
    try:
        acts = [ACTS[attrs[k]] for k in _NAMES]
    except KeyError as e:
        raise PeError(f"lstmp: activation {e.args[0]!r} is not one of {sorted(ACTS)}") from None
    # the projection's activation is Fluid's activation op's (a plain sigmoid), the cell's math::detail's
    return acts[:3] + [acts[3] if attrs["proj_activation"] == "identity" else PLAIN_ACTS[attrs["cell_activation"]]]


def proj_activation(attrs):
    """The projection's activation as Fluid 1.8.5 applies it: cell_activation, or identity."""
    return "identity" if attrs["proj_activation"] == "identity" else attrs["cell_activation"]


def _clip(v, bound):
    return np.clip(v, -bound, bound) if bound > 0 else v


def _inside(v, bound):
    """The clip's derivative: 1 where v is strictly inside [-bound, bound] (or no clip), else 0."""
    return (np.abs(v) < bound).astype(v.dtype) if bound > 0 else 1.0


def forward(x, w, pw, b, h0, c0, offs, attrs):
    """Projection [T, P], Cell [T, D] and what the backward pass reads (per row)."""
    (gate, _), (cell, _), (cand, _), (proj, _) = _acts(attrs)
    d, p, nseq, rows = pw.shape[0], pw.shape[1], len(offs) - 1, len(x)
    peep = attrs["use_peepholes"]
    r_state = np.zeros((nseq, p), x.dtype) if h0 is None else np.array(h0, dtype=x.dtype)
    c_state = np.zeros((nseq, d), x.dtype) if c0 is None else np.array(c0, dtype=x.dtype)
    projection, cellv = np.empty((rows, p), x.dtype), np.empty((rows, d), x.dtype)
    saved = {
        "gates": np.empty((rows, 6, d), x.dtype),  # i, f, candidate, o, previous c, unclipped c
        "rp": np.empty((rows, p), x.dtype),
        "h": np.empty((rows, d), x.dtype),
        "pa": np.empty((rows, p), x.dtype),
    }  # proj(h W_proj) before the clip
    bias = b.reshape(-1)
    for live, idx in schedule(offs, attrs["is_reverse"]):
        rp, cp = r_state[live], c_state[live]
        g = x[idx] + rp @ w + bias[: 4 * d]
        gi, gf = g[:, d : 2 * d], g[:, 2 * d : 3 * d]
        if peep:
            gi, gf = gi + cp * bias[4 * d : 5 * d], gf + cp * bias[5 * d : 6 * d]
        i, f, cd = gate(gi), gate(gf), cand(g[:, :d])
        c_raw = f * cp + i * cd
        c = _clip(c_raw, attrs["cell_clip"])
        o = gate(g[:, 3 * d :] + (c * bias[6 * d : 7 * d] if peep else 0.0))
        h = o * cell(c)
        pa = proj(h @ pw)
        r = _clip(pa, attrs["proj_clip"])
        projection[idx], cellv[idx] = r, c
        saved["gates"][idx] = np.stack([i, f, cd, o, cp, c_raw], axis=1)
        saved["rp"][idx], saved["h"][idx], saved["pa"][idx] = rp, h, pa
        r_state[live], c_state[live] = r, c
    return projection, cellv, saved


def fluid_batch(saved, cellv, offs, attrs):
    """Fluid's BatchGate [T, 4D] (gates after activation: candidate, input, forget, output),
    BatchCellPreAct [T, D] (cell_activation of the clipped cell) and BatchHidden [T, D], in batch order."""
    perm = batch_index(offs, attrs["is_reverse"])
    d = cellv.shape[1]
    with np.errstate(over="ignore"):
        return {
            "BatchGate": saved["gates"][perm][:, (2, 0, 1, 3)].reshape(len(perm), 4 * d),
            "BatchCellPreAct": _acts(attrs)[1][0](cellv[perm]),
            "BatchHidden": saved["h"][perm],
        }


def backward(x, w, pw, b, cellv, saved, d_proj, d_cell, offs, attrs):
    """Gradients of Input, Weight, ProjWeight, Bias, H0 and C0."""
    (_, dgate), (cell, dcell), (_, dcand), (_, dproj) = _acts(attrs)
    fns = dgate, cell, dcell, dcand
    d, p, nseq = pw.shape[0], pw.shape[1], len(offs) - 1
    peep = attrs["use_peepholes"]
    bias = b.reshape(-1)
    dx, dw, dpw = np.zeros_like(x), np.zeros_like(w), np.zeros_like(pw)
    db = np.zeros(bias.shape, x.dtype)
    dr_state, dc_state = np.zeros((nseq, p), x.dtype), np.zeros((nseq, d), x.dtype)
    for live, idx in reversed(schedule(offs, attrs["is_reverse"])):
        i, f, cd, o, cp, c_raw = (saved["gates"][idx, k] for k in range(6))
        c, h, pa, rp = cellv[idx], saved["h"][idx], saved["pa"][idx], saved["rp"][idx]
        dr = (d_proj[idx] + dr_state[live]) * _inside(pa, attrs["proj_clip"])
        dpa = dr * dproj(pa)
        dpw += h.T @ dpa
        dh = dpa @ pw.T
        d_cell_rows = None if d_cell is None else d_cell[idx]
        inside = _inside(c_raw, attrs["cell_clip"])
        dg, dcp = cell_grads(dh, dc_state[live], d_cell_rows, (i, f, cd, o, cp), c, bias, db, peep, fns, inside)
        dx[idx] = dg
        dw += rp.T @ dg
        db[: 4 * d] += dg.sum(0)
        dr_state[live], dc_state[live] = dg @ w.T, dcp
    return dx, dw, dpw, db.reshape(b.shape), dr_state, dc_state
