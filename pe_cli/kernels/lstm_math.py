"""dynamic_lstm's recurrence over LoD input, written once over an array module (numpy on the
CPU): sequences are ordered by length as Fluid's LoDTensor2BatchFunctor does, so each time step
is one GEMM over the sequences still running. Gate order in Input, Weight and Bias is Fluid's
(candidate, input, forget, output); peepholes are Bias[4D:7D] = (W_ic, W_fc, W_oc)."""
import numpy as np

from ..base.errors import PeError

# activation name -> (forward, derivative from the output)
ACTS = {
    "sigmoid": (lambda x: 1.0 / (1.0 + np.exp(-x)), lambda y: y * (1.0 - y)),
    "tanh": (np.tanh, lambda y: 1.0 - y * y),
    "relu": (lambda x: np.maximum(x, 0.0), lambda y: (y > 0).astype(y.dtype)),
    "identity": (lambda x: x, lambda y: np.ones_like(y)),
}


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


def activations(attrs):
    try:
        return [ACTS[attrs[k]] for k in ("gate_activation", "cell_activation", "candidate_activation")]
    except KeyError as e:
        raise PeError(f"dynamic_lstm: activation {e.args[0]!r} is not one of {sorted(ACTS)}") from None


def forward(x, w, b, h0, c0, offs, attrs):
    """Returns Hidden, Cell and what the backward pass reads (per row: gates, previous h and c)."""
    (gate, _), (cell, _), (cand, _) = activations(attrs)
    d = w.shape[0]
    nseq = len(offs) - 1
    peep = attrs["use_peepholes"]
    h_state = np.zeros((nseq, d), x.dtype) if h0 is None else np.array(h0, dtype=x.dtype)
    c_state = np.zeros((nseq, d), x.dtype) if c0 is None else np.array(c0, dtype=x.dtype)
    hidden, cellv = np.empty((len(x), d), x.dtype), np.empty((len(x), d), x.dtype)
    saved = np.empty((len(x), 6, d), x.dtype)   # i, f, candidate, o, previous c, previous h
    bias = b.reshape(-1)
    for live, rows in schedule(offs, attrs["is_reverse"]):
        hp, cp = h_state[live], c_state[live]
        g = x[rows] + hp @ w + bias[:4 * d]
        gi, gf = g[:, d:2 * d], g[:, 2 * d:3 * d]
        if peep:
            gi = gi + cp * bias[4 * d:5 * d]
            gf = gf + cp * bias[5 * d:6 * d]
        i, f, cd = gate(gi), gate(gf), cand(g[:, :d])
        c = f * cp + i * cd
        go = g[:, 3 * d:] + (c * bias[6 * d:7 * d] if peep else 0.0)
        o = gate(go)
        h = o * cell(c)
        hidden[rows], cellv[rows] = h, c
        saved[rows] = np.stack([i, f, cd, o, cp, hp], axis=1)
        h_state[live], c_state[live] = h, c
    return hidden, cellv, saved


def backward(x, w, b, cellv, saved, d_hidden, d_cell, offs, attrs, with_state):
    """Gradients of Input, Weight, Bias (and H0, C0 when ``with_state``)."""
    (_, dgate), (cell, dcell), (_, dcand) = activations(attrs)
    d = w.shape[0]
    nseq = len(offs) - 1
    peep = attrs["use_peepholes"]
    bias = b.reshape(-1)
    dx, dw, db = np.zeros_like(x), np.zeros_like(w), np.zeros(bias.shape, x.dtype)
    dh_state, dc_state = np.zeros((nseq, d), x.dtype), np.zeros((nseq, d), x.dtype)
    for live, rows in reversed(schedule(offs, attrs["is_reverse"])):
        i, f, cd, o, cp, hp = (saved[rows, k] for k in range(6))
        c = cellv[rows]
        ac = cell(c)
        dh = d_hidden[rows] + dh_state[live]
        dgo = dh * ac * dgate(o)
        dc = dc_state[live] + dh * o * dcell(ac)
        if d_cell is not None:
            dc = dc + d_cell[rows]
        if peep:
            dc = dc + dgo * bias[6 * d:7 * d]
        dgi, dgf, dgc = dc * cd * dgate(i), dc * cp * dgate(f), dc * i * dcand(cd)
        dcp = dc * f
        if peep:
            dcp = dcp + dgi * bias[4 * d:5 * d] + dgf * bias[5 * d:6 * d]
            db[4 * d:5 * d] += (dgi * cp).sum(0)
            db[5 * d:6 * d] += (dgf * cp).sum(0)
            db[6 * d:7 * d] += (dgo * c).sum(0)
        dg = np.concatenate([dgc, dgi, dgf, dgo], axis=1)
        dx[rows] = dg
        dw += hp.T @ dg
        db[:4 * d] += dg.sum(0)
        dh_state[live], dc_state[live] = dg @ w.T, dcp
    return dx, dw, db.reshape(b.shape), (dh_state, dc_state) if with_state else (None, None)
