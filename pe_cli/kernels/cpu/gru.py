"""CPU out-kernels of the GRU ops (ops/gru.py; their meta rules: shapes/recurrent.py), fresh variants that hand
over the arrays they make (kernels/structured.fresh_outputs): gru runs per time step numpy's GEMMs over the live
sequences (kernels/lstm_math.py's schedule) and the numba passes of _gru_loops.py (the GIL released
in both), all the steps in one numba call where a CBLAS GEMM is found (the GIL released throughout; a
large batch's sequences in groups run at once on the device's threads: sequence_groups);
Fluid's batch-ordered outputs are made from, and read back into, the per-row values the backward
pass reads (gru_math.fluid_batch, saved_from_batch). gru_unit, one step, is kernels/gru_math.py
over numpy."""

import numpy as np

from .. import gru_math
from ..common import ACT_CODES as _CODES
from ..lstm_math import VEC_ACTS, fused_intermediates, schedule
from ...shapes import recurrent as rules
from ..structured import adapter, fresh_outputs
from .runtime import cblas, threads  # (before .gemm: runtime's package imports the kernels gemm's does)
from .runtime.loops import lazy, parallel_threads, twin
from .gemm import matmul2d

_UNIT_ACTS = {0: "identity", 1: "sigmoid", 2: "tanh", 3: "relu"}
_BATCH_OUTPUTS = {"BatchGate", "BatchResetHiddenPrev", "BatchHidden"}
_loops = lazy("_gru_loops")
MIN_GROUP = 4  # sequences a group of the whole-sequence loops holds at least (sequence_groups)


def _prepare(ins, meta):
    x = np.ascontiguousarray(ins["Input"])
    return x, ins["Weight"], ins.get("Bias"), ins.get("H0"), meta.args[0]


def _codes(attrs):
    return _CODES[attrs["gate_activation"]], _CODES[attrs["activation"]], bool(attrs["origin_mode"])


def _sequence_gemm(x, w):
    """The CBLAS GEMM for the whole-sequence loops (_gru_loops.forward_sequence), or None."""
    return cblas.gemm(x.dtype) if x.dtype == w.dtype else None


def sequence_groups(nseq, rows, row_macs):
    """How many groups of sequences the whole-sequence loops of a GRU or an LSTM run at once
    (_gru_loops.forward_groups): the threads the device has on a quiet machine (threads.work_parts: the
    numbers do not change with the load), where the recurrent GEMMs of the ``rows`` (``row_macs``
    multiply-adds a row) come to threads.SPLIT_GEMM_MACS and each group holds MIN_GROUP sequences; else 1
    (one call of the loops, on one thread)."""
    if rows * row_macs < threads.SPLIT_GEMM_MACS:
        return 1
    return max(1, min(threads.work_parts(), nseq // MIN_GROUP))


def _order(offs, attrs):
    """(offsets, the sequences by decreasing length, is_reverse) as the whole-sequence loops take them."""
    offs = np.ascontiguousarray(offs, dtype=np.int64)
    return offs, np.argsort(-np.diff(offs), kind="stable"), bool(attrs["is_reverse"])


def _forward(x, w, b, h0, offs, attrs):
    """Hidden [T, D] and BatchGate [T, 5D] (u, r, c, r h', h' per row): per time step the GEMMs
    over the live sequences, then the numba passes."""
    d, rows_total = w.shape[0], len(x)
    w_ur, w_c = gru_math.split_weight(w)
    bias = np.zeros(3 * d, x.dtype) if b is None else np.ascontiguousarray(b, dtype=x.dtype).reshape(-1)
    h_state = np.zeros((len(offs) - 1, d), x.dtype) if h0 is None else np.array(h0, dtype=x.dtype)
    hidden, batch_gate = np.empty((rows_total, d), x.dtype), np.empty((rows_total, 5 * d), x.dtype)
    gates, rhps, hps = gru_math.unpack(batch_gate)
    gate, cand, origin = _codes(attrs)
    loops = _loops()
    gemm = _sequence_gemm(x, w)
    if gemm is not None:  # every step in one call, without the GIL: devices' GRUs run at once
        nseq = len(offs) - 1
        parts = sequence_groups(nseq, rows_total, 3 * d * d)
        size = -(-nseq // parts)
        head = (gemm, x, w_ur, w_c, bias, *_order(offs, attrs), h_state, gates, rhps, hps, hidden)
        scratch = tuple(np.empty((parts, size, k * d), x.dtype) for k in (1, 2, 1, 1))
        if parts == 1:
            loops.forward_sequence(*head, *(b[0] for b in scratch), gate, cand, origin)
        else:
            args = (*head, *scratch, gate, cand, origin, np.empty((parts, size), np.int64))
            serial, parallel = loops.forward_groups, loops.forward_groups_parallel
            twin(serial, parallel, parallel_threads() > 1, *args, replica=_forward_groups_one_by_one)(*args)
        return hidden, batch_gate
    for live, rows in schedule(offs, attrs["is_reverse"]):
        rhp = np.empty((len(live), d), x.dtype)
        loops.forward_ur(x, h_state[live] @ w_ur, bias, live, rows, h_state, gates, rhp, rhps, hps, gate)
        loops.forward_c(x, rhp @ w_c, bias, live, rows, h_state, gates, hidden, cand, origin)
    return hidden, batch_gate


def _backward(x, w, batch_gate, d_hidden, offs, attrs):
    """Gradients of Input, Weight, Bias (a [3D] row) and H0 from Hidden's gradient."""
    d = w.shape[0]
    w_ur, w_c = gru_math.split_weight(w)
    gates, rhps, hps = gru_math.unpack(batch_gate)
    dx = np.zeros_like(x)
    dh_state = np.zeros((len(offs) - 1, d), x.dtype)
    gate, cand, origin = _codes(attrs)
    d_hidden = np.ascontiguousarray(d_hidden, dtype=x.dtype)
    loops = _loops()
    gemm = _sequence_gemm(x, w)
    steps = () if gemm is not None else schedule(offs, attrs["is_reverse"])
    if gemm is not None:
        nseq = len(offs) - 1
        parts = sequence_groups(nseq, len(x), 3 * d * d)
        size = -(-nseq // parts)
        head = (gemm, d_hidden, dh_state, gates, hps, rhps, w_ur, w_c, *_order(offs, attrs))
        scratch = tuple(np.empty((parts, size, k * d), x.dtype) for k in (2, 1, 1, 1, 1, 1, 1))
        if parts == 1:
            loops.backward_sequence(*head, *(b[0] for b in scratch), dx, gate, cand, origin)
        else:
            args = (*head, *scratch, dx, gate, cand, origin, np.empty((parts, size), np.int64))
            serial, parallel = loops.backward_groups, loops.backward_groups_parallel
            twin(serial, parallel, parallel_threads() > 1, *args, replica=_backward_groups_one_by_one)(*args)
    for live, rows in reversed(steps):
        n = len(live)
        dgur, dgc = np.empty((n, 2 * d), x.dtype), np.empty((n, d), x.dtype)
        dhp, hp_buf, rhp_buf = (np.empty((n, d), x.dtype) for _ in range(3))
        loops.backward_c(
            d_hidden, dh_state, gates, hps, rhps, live, rows, dgur, dgc, dhp, hp_buf, rhp_buf, dx, gate, cand, origin
        )
        loops.backward_r(dgc @ w_c.T, gates, hps, rows, dgur, dhp, dx, gate)
        dh_state[live] = dhp + dgur @ w_ur.T
    # the weight's gradients, sums over every row of h'^T d(u, r) and (r h')^T d(c): one GEMM each over
    # all rows (dx holds the gates' gradients) instead of two small ones a step, in blocks on the device's
    # threads where large
    dw_ur = matmul2d(hps, dx[:, : 2 * d], trans_a=True).astype(x.dtype, copy=False)
    dw_c = matmul2d(rhps, dx[:, 2 * d :], trans_a=True).astype(x.dtype, copy=False)
    return dx, gru_math.join_weight(dw_ur, dw_c), dx.sum(0), dh_state


# -- while the groups' loops compile (a first run on a machine: runtime/loops.loop_or) -----------------------
# The groups one after another from Python, each group's recurrence the compiled whole-sequence loop on the
# arguments _gru_loops.forward_groups / backward_groups pass it: their bits.


def _forward_groups_one_by_one(*args):
    *head, order, reverse, h_state, gates, rhps, hps, hidden, hp_buf, hw, rhp_buf, hc, gate, cand, origin, sub = args
    parts = sub.shape[0]
    for p in range(parts):
        ng = order[p::parts].size
        sub[p, :ng] = order[p::parts]
        _loops().forward_sequence(
            *head, sub[p, :ng], reverse, h_state, gates, rhps, hps, hidden, hp_buf[p], hw[p], rhp_buf[p], hc[p],
            gate, cand, origin,
        )  # fmt: skip


def _backward_groups_one_by_one(*args):
    *head, order, reverse, dgur, dgc, dhp, hp_buf, rhp_buf, drhp, dhw, dx, gate, cand, origin, sub = args
    parts = sub.shape[0]
    for p in range(parts):
        ng = order[p::parts].size
        sub[p, :ng] = order[p::parts]
        _loops().backward_sequence(
            *head, sub[p, :ng], reverse, dgur[p], dgc[p], dhp[p], hp_buf[p], rhp_buf[p], drhp[p], dhw[p], dx,
            gate, cand, origin,
        )  # fmt: skip


def gru(ins, outs, attrs, meta, ctx):
    x, w, b, h0, offs = _prepare(ins, meta)
    hidden, saved = _forward(x, w, b, h0, offs, attrs)
    results = {"Hidden": hidden}
    if _BATCH_OUTPUTS & ctx.wanted(_BATCH_OUTPUTS):
        results.update(gru_math.fluid_batch(saved, hidden, offs, attrs["is_reverse"]))
    fresh_outputs(results, ins, outs, meta)


def _saved(ins, x, w, b, h0, offs, attrs):
    """The per-row values the backward pass reads: from the forward's outputs, else computed again."""
    if all(s in ins for s in ("BatchGate", "BatchResetHiddenPrev", "Hidden")):
        return gru_math.saved_from_batch(
            ins["BatchGate"], ins["BatchResetHiddenPrev"], ins["Hidden"], h0, offs, attrs["is_reverse"]
        )
    return _forward(x, w, b, h0, offs, attrs)[1]


def gru_grad(ins, outs, attrs, meta):
    x, w, b, h0, offs = _prepare(ins, meta)
    dx, dw, db, dh0 = _backward(x, w, _saved(ins, x, w, b, h0, offs, attrs), ins["Hidden@GRAD"], offs, attrs)
    results = {"Input@GRAD": dx, "Weight@GRAD": dw, "H0@GRAD": dh0}
    fresh_outputs({**results, "Bias@GRAD": None if b is None else db.reshape(b.shape)}, ins, outs, meta)


def _unit(attrs):
    (gate, dgate), (cand, dcand) = gru_math.acts({k: _UNIT_ACTS[attrs[k]] for k in ("gate_activation", "activation")})
    return gate, dgate, cand, dcand


def gru_unit(ins, outs, attrs, meta):
    gate, _, cand, _ = _unit(attrs)
    w_ur, w_c = gru_math.split_weight(ins["Weight"])
    b = ins.get("Bias")
    g, rhp, h = gru_math.step_forward(
        ins["Input"],
        ins["HiddenPrev"],
        w_ur,
        w_c,
        None if b is None else b.reshape(-1),
        gate,
        cand,
        attrs["origin_mode"],
    )
    fresh_outputs({"Gate": g, "ResetHiddenPrev": rhp, "Hidden": h}, ins, outs, meta)


def gru_unit_grad(ins, outs, attrs, meta):
    _, dgate, _, dcand = _unit(attrs)
    w = ins["Weight"]
    w_ur, w_c = gru_math.split_weight(w)
    dg, dhp, dw_ur, dw_c = gru_math.step_backward(
        ins["Gate"],
        ins["ResetHiddenPrev"],
        ins["HiddenPrev"],
        ins["Hidden@GRAD"],
        w_ur,
        w_c,
        dgate,
        dcand,
        attrs["origin_mode"],
        ins.get("Gate@GRAD"),
        ins.get("ResetHiddenPrev@GRAD"),
    )
    b = ins.get("Bias")
    results = {"Input@GRAD": dg, "HiddenPrev@GRAD": dhp, "Weight@GRAD": gru_math.join_weight(dw_ur, dw_c)}
    fresh_outputs({**results, "Bias@GRAD": None if b is None else dg.sum(0).reshape(b.shape)}, ins, outs, meta)


def fusion_gru_out(ins, outs, attrs, meta, ctx):
    """Fluid's fusion_gru: gru over X WeightX + Bias, non-origin mode, Fluid's CPU vector activations."""
    x = np.asarray(ins["X"])
    offs = meta.args[0]
    xx = x @ ins["WeightX"]
    if ins.get("Bias") is not None:
        xx = xx + np.reshape(ins["Bias"], -1)
    xx = xx.astype(x.dtype, copy=False)
    gate, cand = (VEC_ACTS[attrs[k]][0] for k in ("gate_activation", "activation"))
    with np.errstate(over="ignore"):
        hidden = gru_math.forward(
            xx, np.asarray(ins["WeightH"]), ins.get("H0"), offs, attrs["is_reverse"], gate, cand, origin=False
        )
    results = fused_intermediates(
        attrs, ctx, offs, XX=xx, BatchedInput=xx, BatchedOut=hidden, ReorderedH0=ins.get("H0")
    )
    fresh_outputs({"Hidden": hidden, **results}, ins, outs, meta)


gru.takes_context = fusion_gru_out.takes_context = True  # (ctx.wanted: the outputs the program reads)

# fusion_gru's kernel by name, the two above: CUDA's host fallback runs it (kernels/cuda/gru.py's HOST_OPS)
fusion_gru = adapter(rules.fusion_gru_meta, fusion_gru_out, "fusion_gru")
