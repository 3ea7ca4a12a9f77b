"""CUDA twin of kernels/cpu/lstmp.py: the same length-ordered schedule (kernels/lstm_math.py); per
time step a GEMM for the gates (r' Weight), a fused kernel for gates, cell (clipped) and hidden
state, a GEMM for the projection (h ProjWeight) and a kernel for its activation and clip; backward
the same in reverse, atomics summing the bias gradient; the gradient runs the forward again (Fluid's
batch-ordered outputs, row gathers of the per-row values, do not hold what it reads). The
projection's activation is Fluid 1.8.5's (lstmp_math.proj_activation)."""

import numpy as np
from numba import cuda

from ..common import PLAIN_SIGMOID, check_initial_states, seq_offsets
from ..lstm_math import batch_index, schedule
from ..lstmp_math import proj_activation
from . import runtime as rt
from .gather_scatter import take_rows
from ._launch import copy, flat, grid, zeros
from ._matmul import matmul
from .lstm import CODES, _act, add_into, _dact, scatter_state, _to_batch
from .gru import _rows
from .launcher import jit_kernel


@cuda.jit(device=True)
def _clip(v, bound):
    if bound > 0:
        return min(max(v, -bound), bound)
    return v


@cuda.jit(device=True)
def _inside(v, bound):
    return 1.0 if bound <= 0 or abs(v) < bound else 0.0


@jit_kernel
def _cell_step(x, gw, bias, live, rows, c_state, cell, saved, hs, h_buf, d, peep, cell_clip, codes):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * d:
        k, j = t // d, t % d
        r, s = rows[k], live[k]
        xg, gg = r * 4 * d, k * 4 * d
        cp = c_state[s * d + j]
        gc = x[xg + j] + gw[gg + j] + bias[j]
        gi = x[xg + d + j] + gw[gg + d + j] + bias[d + j]
        gf = x[xg + 2 * d + j] + gw[gg + 2 * d + j] + bias[2 * d + j]
        go = x[xg + 3 * d + j] + gw[gg + 3 * d + j] + bias[3 * d + j]
        if peep:
            gi += cp * bias[4 * d + j]
            gf += cp * bias[5 * d + j]
        i, f, cd = _act(gi, codes[0]), _act(gf, codes[0]), _act(gc, codes[2])
        c_raw = f * cp + i * cd
        c = _clip(c_raw, cell_clip)
        if peep:
            go += c * bias[6 * d + j]
        o = _act(go, codes[0])
        h = o * _act(c, codes[1])
        cell[r * d + j], c_state[s * d + j], hs[r * d + j], h_buf[k * d + j] = c, c, h, h
        base = r * 6 * d + j
        saved[base], saved[base + d], saved[base + 2 * d] = i, f, cd
        saved[base + 3 * d], saved[base + 4 * d], saved[base + 5 * d] = o, cp, c_raw
        t += step


@jit_kernel
def _proj_step(pz, rp, live, rows, r_state, projection, pas, rps, p, proj_clip, code):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * p:
        k, j = t // p, t % p
        r, s = rows[k], live[k]
        pa = _act(pz[t], code)
        v = _clip(pa, proj_clip)
        projection[r * p + j], r_state[s * p + j], pas[r * p + j], rps[r * p + j] = v, v, pa, rp[t]
        t += step


@jit_kernel
def _proj_back(dproj, dr_state, pas, live, rows, dpa, p, proj_clip, code):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * p:
        k, j = t // p, t % p
        r, s = rows[k], live[k]
        pa = pas[r * p + j]
        dpa[t] = (dproj[r * p + j] + dr_state[s * p + j]) * _inside(pa, proj_clip) * _dact(pa, code)
        t += step


@jit_kernel
def _cell_back(dh_buf, dc_in, has_dc, cellv, saved, bias, live, rows, dc_state, dg, dx, db, d, peep, cell_clip, codes):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * d:
        k, j = t // d, t % d
        r, s = rows[k], live[k]
        base = r * 6 * d + j
        i, f, cd, o = saved[base], saved[base + d], saved[base + 2 * d], saved[base + 3 * d]
        cp, c_raw = saved[base + 4 * d], saved[base + 5 * d]
        c = cellv[r * d + j]
        ac = _act(c, codes[1])
        dh = dh_buf[k * d + j]
        dgo = dh * ac * _dact(o, codes[0])
        dc = dc_state[s * d + j] + dh * o * _dact(ac, codes[1])
        if has_dc:
            dc += dc_in[r * d + j]
        if peep:
            dc += dgo * bias[6 * d + j]
            cuda.atomic.add(db, 6 * d + j, dgo * c)
        dc *= _inside(c_raw, cell_clip)
        dgi, dgf, dgc = dc * cd * _dact(i, codes[0]), dc * cp * _dact(f, codes[0]), dc * i * _dact(cd, codes[2])
        dcp = dc * f
        if peep:
            dcp += dgi * bias[4 * d + j] + dgf * bias[5 * d + j]
            cuda.atomic.add(db, 4 * d + j, dgi * cp)
            cuda.atomic.add(db, 5 * d + j, dgf * cp)
        g, xg = k * 4 * d, r * 4 * d
        dg[g + j], dg[g + d + j], dg[g + 2 * d + j], dg[g + 3 * d + j] = dgc, dgi, dgf, dgo
        dx[xg + j], dx[xg + d + j], dx[xg + 2 * d + j], dx[xg + 3 * d + j] = dgc, dgi, dgf, dgo
        cuda.atomic.add(db, j, dgc)
        cuda.atomic.add(db, d + j, dgi)
        cuda.atomic.add(db, 2 * d + j, dgf)
        cuda.atomic.add(db, 3 * d + j, dgo)
        dc_state[s * d + j] = dcp
        t += step


def _codes(attrs):
    return rt.to_device(
        np.array(
            [CODES[attrs[k]] for k in ("gate_activation", "cell_activation", "candidate_activation")]
            + [_proj_code(attrs)],
            np.int64,
        )
    )


def _proj_code(attrs):
    """The projection's activation code: Fluid's activation op's, a plain sigmoid (lstmp_math)."""
    code = CODES[proj_activation(attrs)]
    return PLAIN_SIGMOID if code == CODES["sigmoid"] else code


def _state(init, shape, dtype):
    return copy(init) if init is not None else zeros(shape, dtype)


def _forward(ins, attrs, ctx):
    x, w, pw, b = ins["Input"], ins["Weight"], ins["ProjWeight"], ins["Bias"]
    offs = seq_offsets(ctx, "Input", x.shape[0])
    check_initial_states(ins, offs)
    (d, p), nseq, t = pw.shape, len(offs) - 1, x.shape[0]
    r_state, c_state = _state(ins.get("H0"), (nseq, p), x.dtype), _state(ins.get("C0"), (nseq, d), x.dtype)
    projection, cell = rt.empty((t, p), x.dtype), rt.empty((t, d), x.dtype)
    st = {
        "saved": rt.empty((t, 6, d), x.dtype),
        "hs": rt.empty((t, d), x.dtype),
        "pas": rt.empty((t, p), x.dtype),
        "rps": rt.empty((t, p), x.dtype),
        "codes": _codes(attrs),
        "cell": cell,
        "steps": [],
    }
    peep = bool(attrs["use_peepholes"])
    for live, rows in schedule(offs, attrs["is_reverse"]):
        live_d, rows_d, n = rt.to_device(live), rt.to_device(rows), len(live)
        rp, h_buf = rt.empty((n, p), x.dtype), rt.empty((n, d), x.dtype)
        take_rows[grid(rp.size)](flat(r_state), live_d, flat(rp), p)
        _cell_step[grid(n * d)](
            flat(x),
            flat(matmul(rp, w)),
            flat(b),
            live_d,
            rows_d,
            flat(c_state),
            flat(cell),
            flat(st["saved"]),
            flat(st["hs"]),
            flat(h_buf),
            d,
            peep,
            float(attrs["cell_clip"]),
            st["codes"],
        )
        _proj_step[grid(n * p)](
            flat(matmul(h_buf, pw)),
            flat(rp),
            live_d,
            rows_d,
            flat(r_state),
            flat(projection),
            flat(st["pas"]),
            flat(st["rps"]),
            p,
            float(attrs["proj_clip"]),
            _proj_code(attrs),
        )
        st["steps"].append((live_d, rows_d, n))
    return projection, st, nseq


def lstmp(ins, attrs, ctx):
    projection, st, _ = _forward(ins, attrs, ctx)
    outs = {"Projection": projection, "Cell": st["cell"]}
    if {"BatchGate", "BatchCellPreAct", "BatchHidden"} & ctx.wanted({"BatchGate"}):
        perm = batch_index(seq_offsets(ctx, "Input", projection.shape[0]), attrs["is_reverse"])
        cell, d = st["cell"], st["cell"].shape[1]
        gates, cell_act = rt.empty((cell.shape[0], 4 * d), cell.dtype), rt.empty(tuple(cell.shape), cell.dtype)
        if cell.size:
            _to_batch[grid(cell.size)](
                flat(st["saved"]),
                flat(cell),
                rt.to_device(perm),
                flat(gates),
                flat(cell_act),
                d,
                CODES[attrs["cell_activation"]],
            )
        outs.update(BatchGate=gates, BatchCellPreAct=cell_act, BatchHidden=_rows(st["hs"], perm))
    return outs


def _saved(ins, attrs, ctx):
    """The forward's values the gradient reads, by running the forward again."""
    _, st, nseq = _forward(ins, attrs, ctx)
    return st, nseq


def lstmp_grad(ins, attrs, ctx):
    x, w, pw, b = ins["Input"], ins["Weight"], ins["ProjWeight"], ins["Bias"]
    st, nseq = _saved(ins, attrs, ctx)
    d, p = pw.shape
    dx, dw, dpw, db = (zeros(tuple(a.shape), x.dtype) for a in (x, w, pw, b))
    dr_state, dc_state = zeros((nseq, p), x.dtype), zeros((nseq, d), x.dtype)
    d_cell = ins.get("Cell@GRAD")
    for live_d, rows_d, n in reversed(st["steps"]):
        dpa, h_buf, rp_buf = rt.empty((n, p), x.dtype), rt.empty((n, d), x.dtype), rt.empty((n, p), x.dtype)
        _proj_back[grid(n * p)](
            flat(ins["Projection@GRAD"]),
            flat(dr_state),
            flat(st["pas"]),
            live_d,
            rows_d,
            flat(dpa),
            p,
            float(attrs["proj_clip"]),
            _proj_code(attrs),
        )
        take_rows[grid(n * d)](flat(st["hs"]), rows_d, flat(h_buf), d)
        take_rows[grid(n * p)](flat(st["rps"]), rows_d, flat(rp_buf), p)
        dg = rt.empty((n, 4 * d), x.dtype)
        _cell_back[grid(n * d)](
            flat(matmul(dpa, pw, trans_b=True)),
            flat(d_cell if d_cell is not None else dx),
            d_cell is not None,
            flat(st["cell"]),
            flat(st["saved"]),
            flat(b),
            live_d,
            rows_d,
            flat(dc_state),
            flat(dg),
            flat(dx),
            flat(db),
            d,
            bool(attrs["use_peepholes"]),
            float(attrs["cell_clip"]),
            st["codes"],
        )
        for dst, part in ((dpw, matmul(h_buf, dpa, trans_a=True)), (dw, matmul(rp_buf, dg, trans_a=True))):
            add_into[grid(part.size)](flat(dst), flat(part))
        drp = matmul(dg, w, trans_b=True)
        scatter_state[grid(drp.size)](flat(drp), live_d, flat(dr_state), p)
    return {
        "Input@GRAD": dx,
        "Weight@GRAD": dw,
        "ProjWeight@GRAD": dpw,
        "Bias@GRAD": db,
        "H0@GRAD": dr_state if ins.get("H0") is not None else None,
        "C0@GRAD": dc_state if ins.get("C0") is not None else None,
    }
