"""CUDA twin of kernels/cpu/gru.py: the same length-ordered schedule (kernels/lstm_math.py); per
time step two GEMMs (h' W_ur, then (r h') W_c; _matmul) around two fused kernels for the gates
and the hidden state, and backward the same in reverse. gru_unit is one such step over all rows.
The bias gradient is the column sum of the input gradient (one GEMM with a row of ones). Fluid's
batch-ordered BatchGate, BatchResetHiddenPrev and BatchHidden are row gathers of the per-row values
(and, for the gradient, gathers back plus each row's previous hidden state). The fused kernels' device
code is in _gru.py; this module launches it."""

import numpy as np
from numba import cuda

from ..common import PLAIN_SIGMOID, check_initial_states, seq_offsets
from ..lstm_math import batch_index, previous_rows, schedule
from . import runtime as rt
from ._gru import back_c, back_r, fwd_c, fwd_ur
from .gather_scatter import take_rows
from ._launch import copy, flat, full, grid, zeros
from ._matmul import matmul
from .lstm import CODES, add_into, scatter_state
from ._host import host_ops
from .indexing import _gather_rows
from .launcher import jit_kernel

_UNIT_NAMES = {0: "identity", 1: "sigmoid", 2: "tanh", 3: "relu"}


def _split(w):
    d = w.shape[0]
    w = copy(w)
    return flat(w)[: 2 * d * d].reshape((d, 2 * d)), flat(w)[2 * d * d :].reshape((d, d))


def _opt(a, fallback):
    return (a, True) if a is not None else (fallback, False)


def _forward_step(x, w_ur, w_c, bias, live_d, rows_d, n, h_state, gates, rhps, hps, hidden, codes, origin):
    d = w_c.shape[0]
    bias, has_bias = _opt(bias, x)
    hp = rt.empty((n, d), x.dtype)
    take_rows[grid(hp.size)](flat(h_state), live_d, flat(hp), d)
    rhp = rt.empty((n, d), x.dtype)
    fwd_ur[grid(n * d)](
        flat(x),
        flat(matmul(hp, w_ur)),
        flat(bias),
        has_bias,
        live_d,
        rows_d,
        flat(h_state),
        flat(gates),
        flat(rhp),
        flat(rhps),
        flat(hps),
        d,
        codes[0],
    )
    fwd_c[grid(n * d)](
        flat(x),
        flat(matmul(rhp, w_c)),
        flat(bias),
        has_bias,
        live_d,
        rows_d,
        flat(h_state),
        flat(gates),
        flat(hidden),
        d,
        codes[1],
        origin,
    )


def _backward_step(st, live_d, rows_d, n, codes, origin):
    """One step backward; ``st`` holds the arrays (x-sized dx, states, weights and their grads)."""
    d, dtype = st["w_c"].shape[0], st["dx"].dtype
    dgur, dgc = rt.empty((n, 2 * d), dtype), rt.empty((n, d), dtype)
    dhp, hp_buf, rhp_buf = rt.empty((n, d), dtype), rt.empty((n, d), dtype), rt.empty((n, d), dtype)
    dg_ext, has_dg = _opt(st.get("dgate"), st["dx"])
    drhp_ext, has_drhp = _opt(st.get("drhp"), st["dx"])
    back_c[grid(n * d)](
        flat(st["dhid"]),
        flat(st["dh_state"]),
        flat(st["gates"]),
        flat(st["hps"]),
        flat(st["rhps"]),
        flat(dg_ext),
        has_dg,
        live_d,
        rows_d,
        flat(dgur),
        flat(dgc),
        flat(dhp),
        flat(hp_buf),
        flat(rhp_buf),
        flat(st["dx"]),
        d,
        codes[0],
        codes[1],
        origin,
    )
    drhp = matmul(dgc, st["w_c"], trans_b=True)
    back_r[grid(n * d)](
        flat(drhp),
        flat(drhp_ext),
        has_drhp,
        flat(dg_ext),
        has_dg,
        flat(st["gates"]),
        flat(st["hps"]),
        live_d,
        rows_d,
        flat(dgur),
        flat(dhp),
        flat(st["dx"]),
        d,
        codes[0],
    )
    dhp2 = matmul(dgur, st["w_ur"], trans_b=True)
    add_into[grid(dhp.size)](flat(dhp), flat(dhp2))
    scatter_state[grid(dhp.size)](flat(dhp), live_d, flat(st["dh_state"]), d)
    for dst, a, g in ((st["dw_ur"], hp_buf, dgur), (st["dw_c"], rhp_buf, dgc)):
        part = matmul(a, g, trans_a=True)
        add_into[grid(part.size)](flat(dst), flat(part))


def _bias_grad(dx, b):
    if b is None:
        return None
    ones = full((1, dx.shape[0]), 1.0, dx.dtype)
    return matmul(ones, dx).reshape(tuple(b.shape))


def _codes(gate, cand):
    return CODES[gate], CODES[cand]


def _forward(ins, attrs, ctx):
    x, w, b = ins["Input"], ins["Weight"], ins.get("Bias")
    offs = seq_offsets(ctx, "Input", x.shape[0])
    check_initial_states(ins, offs)
    d, nseq, rows = w.shape[0], len(offs) - 1, x.shape[0]
    h0 = ins.get("H0")
    h_state = copy(h0) if h0 is not None else zeros((nseq, d), x.dtype)
    w_ur, w_c = _split(w)
    hidden, gates = rt.empty((rows, d), x.dtype), rt.empty((rows, 3 * d), x.dtype)
    rhps, hps = rt.empty((rows, d), x.dtype), rt.empty((rows, d), x.dtype)
    codes, steps = _codes(attrs["gate_activation"], attrs["activation"]), []
    for live, rows_ in schedule(offs, attrs["is_reverse"]):
        live_d, rows_d = rt.to_device(live), rt.to_device(rows_)
        _forward_step(
            x,
            w_ur,
            w_c,
            b,
            live_d,
            rows_d,
            len(live),
            h_state,
            gates,
            rhps,
            hps,
            hidden,
            codes,
            bool(attrs["origin_mode"]),
        )
        steps.append((live_d, rows_d, len(live)))
    return hidden, {"gates": gates, "rhps": rhps, "hps": hps, "w_ur": w_ur, "w_c": w_c}, steps, codes, nseq


@jit_kernel
def _previous_state(values, init, has_init, prev, seq, out, d):
    """Per row the state its step starts from: ``values`` at the previous row, ``init`` (or 0) first."""
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < out.size:
        r, j = t // d, t % d
        p = prev[r]
        out[t] = values[p * d + j] if p >= 0 else (init[seq[r] * d + j] if has_init else 0.0)
        t += step


def _rows(src, index):
    """src's rows in the order of ``index`` (a host array)."""
    out = rt.empty((len(index),) + tuple(src.shape[1:]), src.dtype)
    if out.size:
        _gather_rows[grid(out.size)](
            flat(src), rt.to_device(np.ascontiguousarray(index, np.int64)), flat(out), out.size // max(len(index), 1)
        )
    return out


def gru(ins, attrs, ctx):
    hidden, st, _, _, _ = _forward(ins, attrs, ctx)
    outs = {"Hidden": hidden}
    if {"BatchGate", "BatchResetHiddenPrev", "BatchHidden"} & ctx.wanted({"BatchGate"}):
        perm = batch_index(seq_offsets(ctx, "Input", hidden.shape[0]), attrs["is_reverse"])
        outs.update(
            BatchGate=_rows(st["gates"], perm),
            BatchResetHiddenPrev=_rows(st["rhps"], perm),
            BatchHidden=_rows(hidden, perm),
        )
    return outs


def _saved(ins, attrs, ctx):
    """The forward's values the gradient reads: from Fluid's batch-ordered outputs and Hidden when
    the op wrote them (no second forward pass), else by running the forward again."""
    if not all(s in ins for s in ("BatchGate", "BatchResetHiddenPrev", "Hidden")):
        _, st, steps, codes, nseq = _forward(ins, attrs, ctx)
        return st, steps, codes, nseq
    w, hidden = ins["Weight"], ins["Hidden"]
    offs = seq_offsets(ctx, "Input", ins["Input"].shape[0])
    perm = batch_index(offs, attrs["is_reverse"])
    inverse = np.argsort(perm, kind="stable")
    prev, seq = previous_rows(offs, attrs["is_reverse"])
    hps, h0 = rt.empty(tuple(hidden.shape), hidden.dtype), ins.get("H0")
    if hps.size:
        _previous_state[grid(hps.size)](
            flat(hidden),
            flat(hidden if h0 is None else h0),
            h0 is not None,
            rt.to_device(prev),
            rt.to_device(seq),
            flat(hps),
            hidden.shape[1],
        )
    w_ur, w_c = _split(w)
    steps = [(rt.to_device(live), rt.to_device(rows), len(live)) for live, rows in schedule(offs, attrs["is_reverse"])]
    st = {
        "gates": _rows(ins["BatchGate"], inverse),
        "rhps": _rows(ins["BatchResetHiddenPrev"], inverse),
        "hps": hps,
        "w_ur": w_ur,
        "w_c": w_c,
    }
    return st, steps, _codes(attrs["gate_activation"], attrs["activation"]), len(offs) - 1


def _grad_state(st, x, w, nseq):
    d = w.shape[0]
    dw = zeros(tuple(w.shape), x.dtype)
    st.update(
        dx=zeros(tuple(x.shape), x.dtype),
        dh_state=zeros((nseq, d), x.dtype),
        dw=dw,
        dw_ur=flat(dw)[: 2 * d * d].reshape((d, 2 * d)),
        dw_c=flat(dw)[2 * d * d :].reshape((d, d)),
    )
    return st


def gru_grad(ins, attrs, ctx):
    x, w, b = ins["Input"], ins["Weight"], ins.get("Bias")
    st, steps, codes, nseq = _saved(ins, attrs, ctx)
    st = _grad_state(st, x, w, nseq)
    st["dhid"] = ins["Hidden@GRAD"]
    for live_d, rows_d, n in reversed(steps):
        _backward_step(st, live_d, rows_d, n, codes, bool(attrs["origin_mode"]))
    return {
        "Input@GRAD": st["dx"],
        "Weight@GRAD": st["dw"],
        "Bias@GRAD": _bias_grad(st["dx"], b),
        "H0@GRAD": st["dh_state"] if ins.get("H0") is not None else None,
    }


def _unit_setup(ins, attrs):
    n = ins["HiddenPrev"].shape[0]
    idx = rt.to_device(np.arange(n, dtype=np.int64))
    codes = tuple(
        PLAIN_SIGMOID if c == CODES["sigmoid"] else c  # gru_unit's plain sigmoid
        for c in _codes(_UNIT_NAMES[attrs["gate_activation"]], _UNIT_NAMES[attrs["activation"]])
    )
    return n, idx, codes, bool(attrs["origin_mode"])


def gru_unit(ins, attrs):
    x, w, hp = ins["Input"], ins["Weight"], ins["HiddenPrev"]
    n, idx, codes, origin = _unit_setup(ins, attrs)
    d = w.shape[0]
    w_ur, w_c = _split(w)
    gates, rhps, hidden = rt.empty((n, 3 * d), x.dtype), rt.empty((n, d), x.dtype), rt.empty((n, d), x.dtype)
    _forward_step(
        x,
        w_ur,
        w_c,
        ins.get("Bias"),
        idx,
        idx,
        n,
        copy(hp),
        gates,
        rhps,
        rt.empty((n, d), x.dtype),
        hidden,
        codes,
        origin,
    )
    return {"Gate": gates, "ResetHiddenPrev": rhps, "Hidden": hidden}


def gru_unit_grad(ins, attrs):
    w, b, gates = ins["Weight"], ins.get("Bias"), ins["Gate"]
    n, idx, codes, origin = _unit_setup(ins, attrs)
    w_ur, w_c = _split(w)
    st = {
        "gates": gates,
        "rhps": ins["ResetHiddenPrev"],
        "hps": ins["HiddenPrev"],
        "w_ur": w_ur,
        "w_c": w_c,
        "dhid": ins["Hidden@GRAD"],
        "dgate": ins.get("Gate@GRAD"),
        "drhp": ins.get("ResetHiddenPrev@GRAD"),
    }
    st = _grad_state(st, gates, w, n)
    _backward_step(st, idx, idx, n, codes, origin)
    return {
        "Input@GRAD": st["dx"],
        "HiddenPrev@GRAD": st["dh_state"],
        "Weight@GRAD": st["dw"],
        "Bias@GRAD": _bias_grad(st["dx"], b),
    }


# Fluid has CPU kernels only for fusion_gru, and falls back to them on a GPU place; so does pe (_host.py)
HOST_OPS = host_ops("fusion_gru")
