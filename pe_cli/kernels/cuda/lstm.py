"""CUDA twin of kernels/cpu/lstm.py. lstm: the same length-ordered schedule (kernels/lstm_math.py); per
time step one GEMM over the live sequences (_matmul) and one fused kernel for the gates, cell and
hidden state (and, backward, the gates' gradients, with atomics summing the bias gradient); one
kernel each way between the per-row values the backward pass reads and Fluid's batch-ordered
BatchGate and BatchCellPreAct. lstm_unit: one elementwise kernel forward, one backward."""

import math

import numpy as np
from numba import cuda

from ..common import ACT_CODES as CODES, seq_offsets
from ..lstm_math import batch_index, previous_rows, schedule
from . import runtime as rt
from .gather_scatter import take_rows
from ._launch import copy, flat, grid, zeros
from ._matmul import matmul
from .launcher import jit_kernel


@cuda.jit(device=True)
def _act(x, code):
    if code == 0:  # Fluid's recurrent sigmoid: the input clipped (kernels.common.SIGMOID_MIN)
        return 1.0 / (1.0 + math.exp(-(-40.0 if x < -40.0 else (13.0 if x > 13.0 else x))))
    if code == 4:  # PLAIN_SIGMOID: the one-step ops'
        return 1.0 / (1.0 + math.exp(-x))
    if code == 1:
        return math.tanh(x)
    if code == 2:
        return max(x, 0.0)
    return x


@cuda.jit(device=True)
def _dact(y, code):
    if code == 0 or code == 4:
        return y * (1.0 - y)
    if code == 1:
        return 1.0 - y * y
    if code == 2:
        return 1.0 if y > 0 else 0.0
    return 1.0


@jit_kernel
def scatter_state(src, live, state, d):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < src.size:
        state[live[t // d] * d + t % d] = src[t]
        t += step


@jit_kernel
def add_into(dst, src):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < src.size:
        dst[t] += src[t]
        t += step


@jit_kernel
def _step(x, hw, bias, live, rows, h_state, c_state, hidden, cell, saved, d, peep, codes):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * d:
        k, j = t // d, t % d
        r, s = rows[k], live[k]
        xg, hg = r * 4 * d, k * 4 * d
        cp, hp = c_state[s * d + j], h_state[s * d + j]
        gc = x[xg + j] + hw[hg + j] + bias[j]
        gi = x[xg + d + j] + hw[hg + d + j] + bias[d + j]
        gf = x[xg + 2 * d + j] + hw[hg + 2 * d + j] + bias[2 * d + j]
        go = x[xg + 3 * d + j] + hw[hg + 3 * d + j] + bias[3 * d + j]
        if peep:
            gi += cp * bias[4 * d + j]
            gf += cp * bias[5 * d + j]
        i, f, cd = _act(gi, codes[0]), _act(gf, codes[0]), _act(gc, codes[2])
        c = f * cp + i * cd
        if peep:
            go += c * bias[6 * d + j]
        o = _act(go, codes[0])
        h = o * _act(c, codes[1])
        hidden[r * d + j], cell[r * d + j] = h, c
        base = r * 6 * d + j
        saved[base], saved[base + d], saved[base + 2 * d] = i, f, cd
        saved[base + 3 * d], saved[base + 4 * d], saved[base + 5 * d] = o, cp, hp
        h_state[s * d + j], c_state[s * d + j] = h, c
        t += step


@jit_kernel
def _back(dh_in, dc_in, has_dc, cellv, saved, bias, live, rows, dh_state, dc_state, dg, hp_buf, dx, db, d, peep, codes):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * d:
        k, j = t // d, t % d
        r, s = rows[k], live[k]
        base = r * 6 * d + j
        i, f, cd, o = saved[base], saved[base + d], saved[base + 2 * d], saved[base + 3 * d]
        cp, hp = saved[base + 4 * d], saved[base + 5 * d]
        c = cellv[r * d + j]
        ac = _act(c, codes[1])
        dh = dh_in[r * d + j] + dh_state[s * d + j]
        dgo = dh * ac * _dact(o, codes[0])
        dc = dc_state[s * d + j] + dh * o * _dact(ac, codes[1])
        if has_dc:
            dc += dc_in[r * d + j]
        if peep:
            dc += dgo * bias[6 * d + j]
        dgi, dgf, dgc = dc * cd * _dact(i, codes[0]), dc * cp * _dact(f, codes[0]), dc * i * _dact(cd, codes[2])
        dcp = dc * f
        if peep:
            dcp += dgi * bias[4 * d + j] + dgf * bias[5 * d + j]
            cuda.atomic.add(db, 4 * d + j, dgi * cp)
            cuda.atomic.add(db, 5 * d + j, dgf * cp)
            cuda.atomic.add(db, 6 * d + j, dgo * c)
        g = k * 4 * d
        dg[g + j], dg[g + d + j], dg[g + 2 * d + j], dg[g + 3 * d + j] = dgc, dgi, dgf, dgo
        xg = r * 4 * d
        dx[xg + j], dx[xg + d + j], dx[xg + 2 * d + j], dx[xg + 3 * d + j] = dgc, dgi, dgf, dgo
        cuda.atomic.add(db, j, dgc)
        cuda.atomic.add(db, d + j, dgi)
        cuda.atomic.add(db, 2 * d + j, dgf)
        cuda.atomic.add(db, 3 * d + j, dgo)
        dc_state[s * d + j] = dcp
        hp_buf[k * d + j] = hp
        t += step


def _codes(attrs):
    return rt.to_device(
        np.array([CODES[attrs[k]] for k in ("gate_activation", "cell_activation", "candidate_activation")], np.int64)
    )


def _state(init, nseq, d, dtype):
    return copy(init) if init is not None else zeros((nseq, d), dtype)


def _forward(ins, attrs, ctx):
    x, w, b = ins["Input"], ins["Weight"], ins["Bias"]
    offs = seq_offsets(ctx, "Input", x.shape[0])
    d, nseq = w.shape[0], len(offs) - 1
    h_state, c_state = _state(ins.get("H0"), nseq, d, x.dtype), _state(ins.get("C0"), nseq, d, x.dtype)
    hidden, cell = rt.empty((x.shape[0], d), x.dtype), rt.empty((x.shape[0], d), x.dtype)
    saved = rt.empty((x.shape[0], 6, d), x.dtype)
    codes, steps = _codes(attrs), []
    for live, rows in schedule(offs, attrs["is_reverse"]):
        live_d, rows_d = rt.to_device(live), rt.to_device(rows)
        hp = rt.empty((len(live), d), x.dtype)
        take_rows[grid(hp.size)](flat(h_state), live_d, flat(hp), d)
        hw = matmul(hp, w)
        _step[grid(hp.size)](
            flat(x),
            flat(hw),
            flat(b),
            live_d,
            rows_d,
            flat(h_state),
            flat(c_state),
            flat(hidden),
            flat(cell),
            flat(saved),
            d,
            bool(attrs["use_peepholes"]),
            codes,
        )
        steps.append((live_d, rows_d, len(live)))
    return hidden, cell, saved, steps, codes


@jit_kernel
def _to_batch(saved, cell, perm, gates, cell_act, d, code):
    """Fluid's BatchGate (candidate, input, forget, output) and BatchCellPreAct rows, in batch order."""
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < perm.size * d:
        k, j = t // d, t % d
        r = perm[k]
        base, g = r * 6 * d + j, k * 4 * d + j
        gates[g], gates[g + d], gates[g + 2 * d] = saved[base + 2 * d], saved[base], saved[base + d]
        gates[g + 3 * d] = saved[base + 3 * d]
        cell_act[k * d + j] = _act(cell[r * d + j], code)
        t += step


@jit_kernel
def _from_batch(gates, hidden, cell, h0, c0, has_h0, has_c0, perm, prev, seq, saved, d):
    """The per-row values the backward pass reads, from Fluid's BatchGate and Hidden, Cell, H0, C0."""
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < perm.size * d:
        k, j = t // d, t % d
        r = perm[k]
        base, g = r * 6 * d + j, k * 4 * d + j
        saved[base], saved[base + d], saved[base + 2 * d] = gates[g + d], gates[g + 2 * d], gates[g]
        saved[base + 3 * d] = gates[g + 3 * d]
        p, s = prev[r], seq[r]
        saved[base + 4 * d] = cell[p * d + j] if p >= 0 else (c0[s * d + j] if has_c0 else 0.0)
        saved[base + 5 * d] = hidden[p * d + j] if p >= 0 else (h0[s * d + j] if has_h0 else 0.0)
        t += step


def lstm(ins, attrs, ctx):
    hidden, cell, saved, _, _ = _forward(ins, attrs, ctx)
    outs = {"Hidden": hidden, "Cell": cell}
    if {"BatchGate", "BatchCellPreAct"} & ctx.wanted({"BatchGate"}):
        offs = seq_offsets(ctx, "Input", ins["Input"].shape[0])
        perm = rt.to_device(batch_index(offs, attrs["is_reverse"]))
        d = cell.shape[1]
        gates, cell_act = rt.empty((cell.shape[0], 4 * d), cell.dtype), rt.empty(tuple(cell.shape), cell.dtype)
        _to_batch[grid(cell.size)](
            flat(saved), flat(cell), perm, flat(gates), flat(cell_act), d, CODES[attrs["cell_activation"]]
        )
        outs["BatchGate"], outs["BatchCellPreAct"] = gates, cell_act
    return outs


def _saved_from_batch(ins, offs, attrs):
    cell, d = ins["Cell"], ins["Cell"].shape[1]
    prev, seq = previous_rows(offs, attrs["is_reverse"])
    h0, c0 = ins.get("H0"), ins.get("C0")
    saved = rt.empty((cell.shape[0], 6, d), cell.dtype)
    _from_batch[grid(cell.size)](
        flat(ins["BatchGate"]),
        flat(ins["Hidden"]),
        flat(cell),
        flat(cell if h0 is None else h0),
        flat(cell if c0 is None else c0),
        h0 is not None,
        c0 is not None,
        rt.to_device(batch_index(offs, attrs["is_reverse"])),
        rt.to_device(prev),
        rt.to_device(seq),
        flat(saved),
        d,
    )
    return saved


def lstm_grad(ins, attrs, ctx):
    x, w, b = ins["Input"], ins["Weight"], ins["Bias"]
    offs = seq_offsets(ctx, "Input", x.shape[0])
    d, nseq = w.shape[0], len(offs) - 1
    if all(s in ins for s in ("BatchGate", "Hidden", "Cell")):  # the forward's values: no second pass
        cell, saved, codes = ins["Cell"], _saved_from_batch(ins, offs, attrs), _codes(attrs)
        steps = [
            (rt.to_device(live), rt.to_device(rows), len(live)) for live, rows in schedule(offs, attrs["is_reverse"])
        ]
    else:
        _, cell, saved, steps, codes = _forward(ins, attrs, ctx)
    dx, dw, db = zeros(tuple(x.shape), x.dtype), zeros(tuple(w.shape), x.dtype), zeros(tuple(b.shape), x.dtype)
    dh_state, dc_state = zeros((nseq, d), x.dtype), zeros((nseq, d), x.dtype)
    d_cell = ins.get("Cell@GRAD")
    for live_d, rows_d, n in reversed(steps):
        dg, hp = rt.empty((n, 4 * d), x.dtype), rt.empty((n, d), x.dtype)
        _back[grid(n * d)](
            flat(ins["Hidden@GRAD"]),
            flat(d_cell if d_cell is not None else dx),
            d_cell is not None,
            flat(cell),
            flat(saved),
            flat(b),
            live_d,
            rows_d,
            flat(dh_state),
            flat(dc_state),
            flat(dg),
            flat(hp),
            flat(dx),
            flat(db),
            d,
            bool(attrs["use_peepholes"]),
            codes,
        )
        step_dw = matmul(hp, dg, trans_a=True)
        add_into[grid(step_dw.size)](flat(dw), flat(step_dw))
        dhp = matmul(dg, w, trans_b=True)
        scatter_state[grid(dhp.size)](flat(dhp), live_d, flat(dh_state), d)
    with_state = ins.get("H0") is not None or ins.get("C0") is not None
    return {
        "Input@GRAD": dx,
        "Weight@GRAD": dw,
        "Bias@GRAD": db,
        "H0@GRAD": dh_state if with_state else None,
        "C0@GRAD": dc_state if with_state else None,
    }


@jit_kernel
def _unit_fwd(x, cp, c_out, h_out, d, forget_bias):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < cp.size:
        n, j = t // d, t % d
        base = n * 4 * d + j
        i, f = _act(x[base], 4), _act(x[base + d] + forget_bias, 4)
        o, g = _act(x[base + 2 * d], 4), math.tanh(x[base + 3 * d])
        c = f * cp[t] + i * g
        c_out[t], h_out[t] = c, o * math.tanh(c)
        t += step


@jit_kernel
def _unit_back(x, cp, c, dc_in, dh_in, dx, dcp, d, forget_bias):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < cp.size:
        n, j = t // d, t % d
        base = n * 4 * d + j
        i, f = _act(x[base], 4), _act(x[base + d] + forget_bias, 4)
        o, g = _act(x[base + 2 * d], 4), math.tanh(x[base + 3 * d])
        tc = math.tanh(c[t])
        dh = dh_in[t]
        dc = dc_in[t] + dh * o * (1.0 - tc * tc)
        dx[base], dx[base + d] = dc * g * i * (1.0 - i), dc * cp[t] * f * (1.0 - f)
        dx[base + 2 * d], dx[base + 3 * d] = dh * tc * o * (1.0 - o), dc * i * (1.0 - g * g)
        dcp[t] = dc * f
        t += step


def lstm_unit(ins, attrs):
    x, cp = ins["X"], ins["C_prev"]
    c, h = rt.empty(tuple(cp.shape), x.dtype), rt.empty(tuple(cp.shape), x.dtype)
    _unit_fwd[grid(cp.size)](flat(x), flat(cp), flat(c), flat(h), cp.shape[1], float(attrs["forget_bias"]))
    return {"C": c, "H": h}


def lstm_unit_grad(ins, attrs):
    x, cp = ins["X"], ins["C_prev"]
    dx, dcp = rt.empty(tuple(x.shape), x.dtype), rt.empty(tuple(cp.shape), x.dtype)
    _unit_back[grid(cp.size)](
        flat(x),
        flat(cp),
        flat(ins["C"]),
        flat(ins["C@GRAD"]),
        flat(ins["H@GRAD"]),
        flat(dx),
        flat(dcp),
        cp.shape[1],
        float(attrs["forget_bias"]),
    )
    return {"X@GRAD": dx, "C_prev@GRAD": dcp}
