"""The lstm op's recurrence over LoD input (layers.dynamic_lstm), written once over numpy:
sequences are ordered by length as Fluid's LoDTensor2BatchFunctor does, so each time step is one
GEMM over the sequences still running. Gate order in Input, Weight and Bias is Fluid's (candidate,
input, forget, output); peepholes are Bias[4D:7D] = (W_ic, W_fc, W_oc).

The kernels keep, per input row, what the backward pass reads (``saved`` [T, 6, D]: i, f, candidate,
o, the previous c and h); the op's outputs BatchGate and BatchCellPreAct are Fluid's, in Fluid's
batch order (``batch_index``): ``fluid_batch`` makes them from ``saved`` and ``saved_from_batch``
gives ``saved`` back from them and Hidden, Cell (the gradient of a program Fluid or pe built)."""

import numpy as np

from ..base.errors import PeError
from .common import SIGMOID_MAX, SIGMOID_MIN

# activation name -> (forward, derivative from the output); sigmoid as Fluid's recurrent ops compute it,
# its input clipped (kernels.common.SIGMOID_MIN); PLAIN_ACTS: the one-step ops' (lstm_unit, gru_unit)
ACTS = {
    "sigmoid": (lambda x: 1.0 / (1.0 + np.exp(-np.clip(x, SIGMOID_MIN, SIGMOID_MAX))), lambda y: y * (1.0 - y)),
    "tanh": (np.tanh, lambda y: 1.0 - y * y),
    "relu": (lambda x: np.maximum(x, 0.0), lambda y: (y > 0).astype(y.dtype)),
    "identity": (lambda x: x, lambda y: np.ones_like(y)),
}
PLAIN_ACTS = dict(ACTS, sigmoid=(lambda x: 1.0 / (1.0 + np.exp(-x)), ACTS["sigmoid"][1]))
# Fluid's CPU jit and cpu_vec activations, which its fused ops (fusion_lstm, fusion_gru, attention_lstm, ...)
# use: tanh is 2 sigmoid(2x) - 1 of the clipped sigmoid, so it stops at tanh(6.5) = 0.9999955 (float32: 1 - 4.5e-6)
VEC_ACTS = dict(ACTS, tanh=(lambda x: 2.0 * ACTS["sigmoid"][0](2.0 * x) - 1.0, ACTS["tanh"][1]))


def schedule(offs, is_reverse):
    """Per time step: (the sequences still running, the input row of each at that step)."""
    offs = np.asarray(offs, dtype=np.int64)
    lengths = np.diff(offs)
    order = np.argsort(-lengths, kind="stable")
    steps = []
    for t in range(int(lengths.max(initial=0))):
        live = order[lengths[order] > t]
        rows = offs[live] + (lengths[live] - 1 - t if is_reverse else t)
        steps.append((live, rows))
    return steps


def batch_index(offs, is_reverse):
    """Fluid's batch order (LoDTensor2BatchFunctor): the input row of each batch row, time step by
    time step, the sequences still running longest first."""
    steps = schedule(offs, is_reverse)
    return np.concatenate([rows for _, rows in steps]) if steps else np.zeros(0, np.int64)


def previous_rows(offs, is_reverse):
    """(per input row the row of its sequence's previous step, -1 at a first step; per row its
    sequence)."""
    offs = np.asarray(offs, dtype=np.int64)
    lengths = np.diff(offs)
    seq = np.repeat(np.arange(len(lengths)), lengths)
    rows = np.arange(int(offs[-1]))
    first = offs[:-1][lengths > 0] + (lengths[lengths > 0] - 1 if is_reverse else 0)
    prev = rows + 1 if is_reverse else rows - 1
    prev[first] = -1
    return prev, seq


def previous_state(values, initial, prev, seq):
    """Per row the state its step starts from: ``values`` at the previous row, ``initial`` (one row
    per sequence; None: zeros) at a first step."""
    out = values[np.maximum(prev, 0)]
    first = prev < 0
    out[first] = 0 if initial is None else np.asarray(initial, dtype=values.dtype)[seq[first]]
    return out


_BATCH_GATES = np.array((2, 0, 1, 3))  # BatchGate's blocks (candidate, input, forget, output) in ``saved``


def fluid_batch(saved, cell, offs, attrs):
    """Fluid's BatchGate [T, 4D] (the gates after activation: candidate, input, forget, output) and
    BatchCellPreAct [T, D] (cell_activation of the cell), in batch order."""
    perm = batch_index(offs, attrs["is_reverse"])
    d = cell.shape[1]
    gates = saved[perm[:, None], _BATCH_GATES].reshape(len(perm), 4 * d)  # one gather (0.2 ms, not 0.86: 1,600 x 128)
    with np.errstate(over="ignore"):
        return gates, activations(attrs)[1][0](cell[perm])


def saved_from_batch(batch_gate, hidden, cell, h0, c0, offs, is_reverse):
    """``saved`` [T, 6, D] from Fluid's BatchGate and the op's Hidden and Cell (and H0, C0)."""
    t, d = cell.shape
    perm = batch_index(offs, is_reverse)
    saved = np.empty((t, 6, d), cell.dtype)
    saved[perm[:, None], _BATCH_GATES] = np.asarray(batch_gate).reshape(t, 4, d)  # one scatter
    prev, seq = previous_rows(offs, is_reverse)
    saved[:, 4] = previous_state(np.asarray(cell), c0, prev, seq)
    saved[:, 5] = previous_state(np.asarray(hidden), h0, prev, seq)
    return saved


def activations(attrs, table=ACTS):
    try:
        return [table[attrs[k]] for k in ("gate_activation", "cell_activation", "candidate_activation")]
    except KeyError as e:
        raise PeError(f"lstm: activation {e.args[0]!r} is not one of {sorted(table)}") from None


def forward(x, w, b, h0, c0, offs, attrs, table=ACTS):
    """Returns Hidden, Cell and what the backward pass reads (per row: gates, previous h and c);
    ``table``: the activations (VEC_ACTS for Fluid's fused ops)."""
    (gate, _), (cell, _), (cand, _) = activations(attrs, table)
    d = w.shape[0]
    nseq = len(offs) - 1
    peep = attrs["use_peepholes"]
    h_state = np.zeros((nseq, d), x.dtype) if h0 is None else np.array(h0, dtype=x.dtype)
    c_state = np.zeros((nseq, d), x.dtype) if c0 is None else np.array(c0, dtype=x.dtype)
    hidden, cellv = np.empty((len(x), d), x.dtype), np.empty((len(x), d), x.dtype)
    saved = np.empty((len(x), 6, d), x.dtype)  # i, f, candidate, o, previous c, previous h
    bias = b.reshape(-1)
    for live, rows in schedule(offs, attrs["is_reverse"]):
        hp, cp = h_state[live], c_state[live]
        g = x[rows] + hp @ w + bias[: 4 * d]
        gi, gf = g[:, d : 2 * d], g[:, 2 * d : 3 * d]
        if peep:
            gi = gi + cp * bias[4 * d : 5 * d]
            gf = gf + cp * bias[5 * d : 6 * d]
        i, f, cd = gate(gi), gate(gf), cand(g[:, :d])
        c = f * cp + i * cd
        go = g[:, 3 * d :] + (c * bias[6 * d : 7 * d] if peep else 0.0)
        o = gate(go)
        h = o * cell(c)
        hidden[rows], cellv[rows] = h, c
        saved[rows] = np.stack([i, f, cd, o, cp, hp], axis=1)
        h_state[live], c_state[live] = h, c
    return hidden, cellv, saved


def cell_grads(dh, dc_carried, d_cell, gates, c, bias, db, peep, fns, inside=None):
    """One step of an LSTM cell's backward pass (lstm's, and lstmp's below its projection): the gates'
    gradients dg [n, 4d] (candidate, input, forget, output) and the previous cell's, from the hidden
    gradient ``dh``, the cell gradient carried from the next step and the Cell output's (``d_cell``, or
    None); ``gates``: the step's i, f, candidate, o and previous cell; ``c``: its cell; ``fns``: dgate, cell,
    dcell, dcand. ``inside`` (lstmp's cell_clip derivative) scales the cell gradient after the output
    gate's peephole; the peepholes' gradients are added into ``db``."""
    dgate, cell, dcell, dcand = fns
    i, f, cd, o, cp = gates
    d = c.shape[1]
    ac = cell(c)
    dgo = dh * ac * dgate(o)
    dc = dc_carried + dh * o * dcell(ac)
    if d_cell is not None:
        dc = dc + d_cell
    if peep:
        dc = dc + dgo * bias[6 * d : 7 * d]
        db[6 * d : 7 * d] += (dgo * c).sum(0)
    if inside is not None:
        dc = dc * inside
    dgi, dgf, dgc = dc * cd * dgate(i), dc * cp * dgate(f), dc * i * dcand(cd)
    dcp = dc * f
    if peep:
        dcp = dcp + dgi * bias[4 * d : 5 * d] + dgf * bias[5 * d : 6 * d]
        db[4 * d : 5 * d] += (dgi * cp).sum(0)
        db[5 * d : 6 * d] += (dgf * cp).sum(0)
    return np.concatenate([dgc, dgi, dgf, dgo], axis=1), dcp


def backward(x, w, b, cellv, saved, d_hidden, d_cell, offs, attrs, with_state):
    """Gradients of Input, Weight, Bias (and H0, C0 when ``with_state``)."""
    (_, dgate), (cell, dcell), (_, dcand) = activations(attrs)
    fns = dgate, cell, dcell, dcand
    d = w.shape[0]
    nseq = len(offs) - 1
    peep = attrs["use_peepholes"]
    bias = b.reshape(-1)
    dx, dw, db = np.zeros_like(x), np.zeros_like(w), np.zeros(bias.shape, x.dtype)
    dh_state, dc_state = np.zeros((nseq, d), x.dtype), np.zeros((nseq, d), x.dtype)
    for live, rows in reversed(schedule(offs, attrs["is_reverse"])):
        i, f, cd, o, cp, hp = (saved[rows, k] for k in range(6))
        dh = d_hidden[rows] + dh_state[live]
        d_cell_rows = None if d_cell is None else d_cell[rows]
        dg, dcp = cell_grads(dh, dc_state[live], d_cell_rows, (i, f, cd, o, cp), cellv[rows], bias, db, peep, fns)
        dx[rows] = dg
        dw += hp.T @ dg
        db[: 4 * d] += dg.sum(0)
        dh_state[live], dc_state[live] = dg @ w.T, dcp
    return dx, dw, db.reshape(b.shape), (dh_state, dc_state) if with_state else (None, None)


def fused_intermediates(attrs, ctx, offs, **values):
    """The intermediate outputs of Fluid's fused recurrent ops that the op writes: XX as it is,
    Batched* in batch order (batch_index), Reordered* (initial states) longest sequence first."""
    wanted = ctx.wanted(values.keys())
    perm = order = None
    outs = {}
    for slot, value in values.items():
        if slot not in wanted or value is None:
            continue
        if slot.startswith("Batched"):
            perm = batch_index(offs, attrs["is_reverse"]) if perm is None else perm
            value = value[perm]
        elif slot.startswith("Reordered"):
            order = np.argsort(-np.diff(offs), kind="stable") if order is None else order
            value = np.asarray(value)[order]
        outs[slot] = value
    return outs
