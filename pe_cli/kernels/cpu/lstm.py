"""CPU out-kernels of the LSTM ops (ops/lstm.py; their meta rules: shapes/recurrent.py), fresh variants that hand
over the arrays they make (kernels/structured.fresh_outputs): lstm in kernels/lstm_math.py's schedule (sequences
ordered by length, one GEMM per time step over the live ones), the rest of each step one numba pass
(_lstm_loops.py) over states kept in the schedule's order (a step's live sequences are their first
rows: no gathers); in float32 every step in one numba call without the GIL (_lstm_loops.forward_sequence,
where a CBLAS GEMM is found), a large batch's sequences in groups run at once on the device's threads
(gru.sequence_groups); the weight's gradient is one GEMM over every row at the end. Other dtypes run
lstm_math.py over numpy, the reference. Fluid's batch-ordered BatchGate and BatchCellPreAct are made
from, and read back into, the per-row values the backward pass reads (lstm_math.fluid_batch,
saved_from_batch). lstm_unit numpy, elementwise over [N, D]."""

import numpy as np

from .. import lstm_math
from ..common import ACT_CODES, SIGMOID_MAX, SIGMOID_MIN
from ..structured import fresh_outputs
from .runtime import cblas  # (before .gemm: runtime's package imports the kernels gemm's does)
from .gemm import matmul2d
from .gru import sequence_groups
from .runtime.loops import is_float, lazy, parallel_threads, twin

_loops = lazy("_lstm_loops")
_activations = lazy("_activation_loops")


def _prepare(ins, meta):
    x = np.ascontiguousarray(ins["Input"])
    return x, ins["Weight"], ins["Bias"], ins.get("H0"), ins.get("C0"), meta.args[0]


def _plan(x, w, b, offs, attrs):
    """(steps, length order, contiguous bias, activation codes) for the loops."""
    lstm_math.activations(attrs)  # an unknown activation: lstm_math's error
    lengths = np.diff(np.asarray(offs, dtype=np.int64))
    codes = tuple(ACT_CODES[attrs[k]] for k in ("gate_activation", "cell_activation", "candidate_activation"))
    bias = np.ascontiguousarray(np.asarray(b).reshape(-1), dtype=x.dtype)
    order = np.argsort(-lengths, kind="stable")
    if _sequence_gemm(x, w) is not None:  # the whole-sequence loops find each step's rows themselves
        return None, order, bias, codes
    return lstm_math.schedule(offs, attrs["is_reverse"]), order, bias, codes


def _offsets(offs):
    return np.ascontiguousarray(offs, dtype=np.int64)


def _sorted_state(state, order, shape, dtype):
    return np.zeros(shape, dtype) if state is None else np.array(np.asarray(state, dtype=dtype)[order])


def _sequence_gemm(x, w):
    """The CBLAS GEMM for the whole-sequence loops (float32 with a CBLAS found), else None: float64
    keeps the per-step path (the loops' float64 activations are not within its 1e-12 of numpy's)."""
    return cblas.gemm(x.dtype) if x.dtype == np.float32 and w.dtype == np.float32 else None


def _forward(x, w, b, h0, c0, offs, attrs):
    if not is_float(x, w):
        return lstm_math.forward(x, w, b, h0, c0, offs, attrs)
    steps, order, bias, (gate, cell_act, cand) = _plan(x, w, b, offs, attrs)
    d, nseq = w.shape[0], len(offs) - 1
    h_s, c_s = (_sorted_state(s, order, (nseq, d), x.dtype) for s in (h0, c0))
    hidden, cell = np.empty((len(x), d), x.dtype), np.empty((len(x), d), x.dtype)
    saved = np.empty((len(x), 6, d), x.dtype)  # i, f, candidate, o, previous c, previous h
    peep = bool(attrs["use_peepholes"])
    gemm = _sequence_gemm(x, w)
    if gemm is not None:  # every step in one call, without the GIL: devices' LSTMs run at once
        head = (gemm, x, np.ascontiguousarray(w), bias, _offsets(offs), order, bool(attrs["is_reverse"]), h_s, c_s)
        parts = sequence_groups(nseq, len(x), 4 * d * d)
        size = -(-nseq // parts)
        hw, c, ac = (np.empty((parts, size, width * d), x.dtype) for width in (4, 1, 1))
        if parts == 1:
            _loops().forward_sequence(*head, hidden, cell, saved, hw[0], c[0], ac[0], peep, gate, cell_act, cand)
        else:
            groups = (np.empty((parts, size), np.int64), np.empty_like(c), np.empty_like(c))
            args = (*head, hidden, cell, saved, hw, c, ac, peep, gate, cell_act, cand, *groups)
            loops = _loops()
            serial, parallel = loops.forward_groups, loops.forward_groups_parallel
            twin(serial, parallel, parallel_threads() > 1, *args, replica=_forward_groups_one_by_one)(*args)
        return hidden, cell, saved
    hw, c, ac = np.empty((nseq, 4 * d), x.dtype), np.empty((nseq, d), x.dtype), np.empty((nseq, d), x.dtype)
    loops = _loops()
    with np.errstate(over="ignore"):  # sigmoid's exp(-x) of a large -x: inf, and 1 / inf = 0
        for live, rows in steps:
            n = len(live)
            g = hw[:n]
            np.matmul(h_s[:n], w, out=g)
            loops.forward_pre(x, g, bias, rows, c_s, peep)
            _activate(gate, g[:, d : 3 * d] if peep else g[:, d:])  # o too where no peephole reads c
            _activate(cand, g[:, :d])
            loops.forward_cell(g, c_s, bias, c[:n], peep)
            if peep:
                _activate(gate, g[:, 3 * d :])
            np.copyto(ac[:n], c[:n])
            _activate(cell_act, ac[:n])
            loops.forward_out(g, c[:n], ac[:n], rows, h_s, c_s, hidden, cell, saved)
    return hidden, cell, saved


def _activate(code, v):
    """Activation ``code`` (kernels.common.ACT_CODES) of the view ``v`` in place, numpy's vectorised
    calls (sigmoid as lstm_math's 1 / (1 + exp(-x)) of x clipped to [SIGMOID_MIN, SIGMOID_MAX])."""
    if code == 0:
        np.clip(v, SIGMOID_MIN, SIGMOID_MAX, out=v)
        np.negative(v, out=v)
        np.exp(v, out=v)
        np.add(v, 1, out=v)
        np.divide(1, v, out=v)
    elif code == 1:
        np.tanh(v, out=v)
    elif code == 2:
        np.maximum(v, 0, out=v)


def _backward(x, w, b, cellv, saved, d_hidden, d_cell, offs, attrs, with_state):
    if not is_float(x, w, cellv, saved):
        return lstm_math.backward(x, w, b, cellv, saved, d_hidden, d_cell, offs, attrs, with_state)
    steps, order, bias, (gate, cell_act, cand) = _plan(x, w, b, offs, attrs)
    d, nseq = w.shape[0], len(offs) - 1
    dx = np.zeros_like(x)
    dh_s, dc_s = np.zeros((nseq, d), x.dtype), np.zeros((nseq, d), x.dtype)
    dg, db_peep = np.empty((nseq, 4 * d), x.dtype), np.zeros(3 * d, x.dtype)
    d_hidden = np.ascontiguousarray(d_hidden, dtype=x.dtype)
    has_d_cell = d_cell is not None
    d_cell = np.ascontiguousarray(d_cell, dtype=x.dtype) if has_d_cell else d_hidden
    saved, cellv, w_t = np.ascontiguousarray(saved), np.ascontiguousarray(cellv), np.asarray(w).T
    acv = np.array(cellv)
    values = (d_hidden, d_cell, has_d_cell, cellv, acv, saved)
    grads = (dh_s, dc_s, dg, dx, db_peep)
    gemm = _sequence_gemm(x, w)
    if gemm is not None:
        _backward_sequence(gemm, values, grads, w, bias, offs, order, (gate, cell_act, cand), attrs)
        steps = ()
    else:
        with np.errstate(over="ignore"):
            _activate(cell_act, acv)
    _backward_steps(steps, values, grads, bias, w_t, (gate, cell_act, cand), attrs)
    # the sum over every row of h'^T dgates: one GEMM, in blocks on the device's threads where large
    dw = matmul2d(saved[:, 5], dx, trans_a=True).astype(x.dtype, copy=False)
    db = np.concatenate([dx.sum(0), db_peep])[: bias.size] if bias.size > 4 * d else dx.sum(0)
    if not with_state:
        return dx, dw, db.reshape(np.shape(b)), (None, None)
    dh0, dc0 = np.empty_like(dh_s), np.empty_like(dc_s)
    dh0[order], dc0[order] = dh_s, dc_s
    return dx, dw, db.reshape(np.shape(b)), (dh0, dc0)


def _backward_sequence(gemm, values, grads, w, bias, offs, order, codes, attrs):
    """The backward pass over every step in one numba call (float32, a CBLAS GEMM found), its sequences in
    groups as the forward's (sequence_groups); ``values``: the gradients reaching Hidden and Cell and the
    forward's values, ``grads``: the arrays it writes."""
    dh_s, dc_s, dg, dx, db_peep = grads
    d, nseq = dh_s.shape[1], len(order)
    parts = sequence_groups(nseq, len(dx), 4 * d * d)
    gate, cell_act, cand = codes
    w, offs, reverse, peep = (
        np.ascontiguousarray(w),
        _offsets(offs),
        bool(attrs["is_reverse"]),
        bool(attrs["use_peepholes"]),
    )
    loops = _loops()
    if parts == 1:
        args = (gemm, *values, w, bias, offs, order, reverse, dh_s, dc_s, dg, dx, db_peep, gate, cell_act, cand, peep)
        loops.backward_sequence(*args)
        return
    size = -(-nseq // parts)
    sub, dh_g, dc_g = (
        np.empty((parts, size), np.int64),
        np.zeros((parts, size, d), dx.dtype),
        np.zeros((parts, size, d), dx.dtype),
    )
    dg_g, db_g = np.empty((parts, size, 4 * d), dx.dtype), np.zeros((parts, db_peep.size), dx.dtype)
    args = (gemm, *values, w, bias, offs, order, reverse, dh_s, dc_s, dg_g, dx, db_peep, gate, cell_act, cand, peep)
    args = (*args, sub, dh_g, dc_g, db_g)
    serial, parallel = loops.backward_groups, loops.backward_groups_parallel
    twin(serial, parallel, parallel_threads() > 1, *args, replica=_backward_groups_one_by_one)(*args)


# -- while the groups' loops compile (a first run on a machine: runtime/loops.loop_or) ---------------------------
# The groups one after another from Python, each group's recurrence the compiled whole-sequence loop on the
# arguments _lstm_loops.forward_groups / backward_groups pass it: their bits.


def _forward_groups_one_by_one(
    gemm, x, w, bias, offs, order, reverse, h_s, c_s, hidden, cell, saved, hw, c, ac, peep, gate, cell_act, cand,
    sub, h_g, c_g,
):  # fmt: skip
    parts = sub.shape[0]
    for p in range(parts):
        ng = order[p::parts].size
        sub[p, :ng], h_g[p, :ng], c_g[p, :ng] = order[p::parts], h_s[p::parts], c_s[p::parts]
        _loops().forward_sequence(
            gemm, x, w, bias, offs, sub[p, :ng], reverse, h_g[p, :ng], c_g[p, :ng], hidden, cell, saved,
            hw[p], c[p], ac[p], peep, gate, cell_act, cand,
        )  # fmt: skip


def _backward_groups_one_by_one(
    gemm, d_hidden, d_cell, has_d_cell, cellv, acv, saved, w, bias, offs, order, reverse, dh_s, dc_s, dg, dx,
    db_peep, gate, cell_act, cand, peep, sub, dh_g, dc_g, db_g,
):  # fmt: skip
    parts = sub.shape[0]
    _activations().activate(acv, acv.shape[0], 0, w.shape[0], cell_act)
    for p in range(parts):
        ng = order[p::parts].size
        sub[p, :ng] = order[p::parts]
        _loops().backward_steps(
            gemm, d_hidden, d_cell, has_d_cell, cellv, acv, saved, w, bias, offs, sub[p, :ng], reverse,
            dh_g[p, :ng], dc_g[p, :ng], dg[p], dx, db_g[p], gate, cell_act, cand, peep,
        )  # fmt: skip
    for p in range(parts):  # (in the loop's order: db_peep's sums group by group)
        ng = order[p::parts].size
        dh_s[p::parts], dc_s[p::parts] = dh_g[p, :ng], dc_g[p, :ng]
        if peep:
            db_peep += db_g[p]


def _backward_steps(steps, values, grads, bias, w_t, codes, attrs):
    """The backward pass step by step from the last (none where _backward_sequence ran): a numba pass,
    then the GEMM of the gates' gradients by the weight, per step."""
    d_hidden, d_cell, has_d_cell, cellv, acv, saved = values
    dh_s, dc_s, dg, dx, db_peep = grads
    gate, cell_act, cand = codes
    loops = _loops()
    for live, rows in reversed(steps):
        n = len(live)
        loops.backward_step(
            d_hidden,
            d_cell,
            has_d_cell,
            cellv,
            acv,
            saved,
            bias,
            rows,
            dh_s,
            dc_s,
            dg[:n],
            dx,
            db_peep,
            gate,
            cell_act,
            cand,
            bool(attrs["use_peepholes"]),
        )
        np.matmul(dg[:n], w_t, out=dh_s[:n])


def lstm(ins, outs, attrs, meta, ctx):
    x, w, b, h0, c0, offs = _prepare(ins, meta)
    hidden, cell, saved = _forward(x, w, b, h0, c0, offs, attrs)
    results = {"Hidden": hidden, "Cell": cell}
    if {"BatchGate", "BatchCellPreAct"} & ctx.wanted({"BatchGate"}):
        results["BatchGate"], results["BatchCellPreAct"] = lstm_math.fluid_batch(saved, cell, offs, attrs)
    fresh_outputs(results, ins, outs, meta)


lstm.takes_context = True  # (ctx.wanted: whether the program reads the batch-ordered outputs)


def lstm_grad(ins, outs, attrs, meta):
    x, w, b, h0, c0, offs = _prepare(ins, meta)
    if all(s in ins for s in ("BatchGate", "Hidden", "Cell")):  # the forward's values: no second pass
        cell = ins["Cell"]
        saved = lstm_math.saved_from_batch(ins["BatchGate"], ins["Hidden"], cell, h0, c0, offs, attrs["is_reverse"])
    else:
        _, cell, saved = _forward(x, w, b, h0, c0, offs, attrs)
    dx, dw, db, (dh0, dc0) = _backward(
        x,
        w,
        b,
        cell,
        saved,
        ins["Hidden@GRAD"],
        ins.get("Cell@GRAD"),
        offs,
        attrs,
        with_state=h0 is not None or c0 is not None,
    )
    results = {"Input@GRAD": dx, "Weight@GRAD": dw, "Bias@GRAD": db, "H0@GRAD": dh0, "C0@GRAD": dc0}
    fresh_outputs(results, ins, outs, meta)


def _unit_gates(x, forget_bias):
    d = x.shape[1] // 4
    sig = lstm_math.PLAIN_ACTS["sigmoid"][0]
    return sig(x[:, :d]), sig(x[:, d : 2 * d] + forget_bias), sig(x[:, 2 * d : 3 * d]), np.tanh(x[:, 3 * d :])


def lstm_unit(ins, outs, attrs, meta):
    i, f, o, j = _unit_gates(ins["X"], attrs["forget_bias"])
    c = f * ins["C_prev"] + i * j
    fresh_outputs({"C": c, "H": o * np.tanh(c)}, ins, outs, meta)


def lstm_unit_grad(ins, outs, attrs, meta):
    cp = ins["C_prev"]
    i, f, o, j = _unit_gates(ins["X"], attrs["forget_bias"])
    tc = np.tanh(ins["C"])
    dh = ins["H@GRAD"]
    dc = ins["C@GRAD"] + dh * o * (1 - tc * tc)
    dx = np.concatenate(
        [dc * j * i * (1 - i), dc * cp * f * (1 - f), dh * tc * o * (1 - o), dc * i * (1 - j * j)], axis=1
    )
    fresh_outputs({"X@GRAD": dx, "C_prev@GRAD": dc * f}, ins, outs, meta)
