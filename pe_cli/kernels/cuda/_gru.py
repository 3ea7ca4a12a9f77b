"""Device code of gru and gru_unit (kernels in gru.py): the fused kernels of one time step over the live
rows, forward (the update and reset gates, then the candidate and the hidden state) and backward (the
candidate's, then the gates' gradients)."""

from numba import cuda

from .launcher import jit_kernel
from .lstm import _act, _dact


@jit_kernel
def fwd_ur(x, hw, bias, has_bias, live, rows, h_state, gates, rhp_buf, rhps, hps, d, gcode):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * d:
        k, j = t // d, t % d
        r, s = rows[k], live[k]
        hp = h_state[s * d + j]
        gu = x[r * 3 * d + j] + hw[k * 2 * d + j]
        gr = x[r * 3 * d + d + j] + hw[k * 2 * d + d + j]
        if has_bias:
            gu += bias[j]
            gr += bias[d + j]
        u, rg = _act(gu, gcode), _act(gr, gcode)
        gates[r * 3 * d + j], gates[r * 3 * d + d + j] = u, rg
        rhp_buf[k * d + j] = rg * hp
        rhps[r * d + j], hps[r * d + j] = rg * hp, hp
        t += step


@jit_kernel
def fwd_c(x, hc, bias, has_bias, live, rows, h_state, gates, hidden, d, ccode, origin):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * d:
        k, j = t // d, t % d
        r, s = rows[k], live[k]
        v = x[r * 3 * d + 2 * d + j] + hc[k * d + j]
        if has_bias:
            v += bias[2 * d + j]
        c = _act(v, ccode)
        u, hp = gates[r * 3 * d + j], h_state[s * d + j]
        h = u * hp + (1.0 - u) * c if origin else u * c + (1.0 - u) * hp
        gates[r * 3 * d + 2 * d + j] = c
        hidden[r * d + j], h_state[s * d + j] = h, h
        t += step


@jit_kernel
def back_c(
    dhid,
    dh_state,
    gates,
    hps,
    rhps,
    dg_ext,
    has_dg,
    live,
    rows,
    dgur,
    dgc,
    dhp,
    hp_buf,
    rhp_buf,
    dx,
    d,
    gcode,
    ccode,
    origin,
):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * d:
        k, j = t // d, t % d
        r, s = rows[k], live[k]
        dh = dhid[r * d + j] + dh_state[s * d + j]
        u, c, hp = gates[r * 3 * d + j], gates[r * 3 * d + 2 * d + j], hps[r * d + j]
        if origin:
            du, dc, dp = dh * (hp - c), dh * (1.0 - u), dh * u
        else:
            du, dc, dp = dh * (c - hp), dh * u, dh * (1.0 - u)
        if has_dg:
            du += dg_ext[r * 3 * d + j]
            dc += dg_ext[r * 3 * d + 2 * d + j]
        dgu, dgcv = du * _dact(u, gcode), dc * _dact(c, ccode)
        dgur[k * 2 * d + j], dgc[k * d + j] = dgu, dgcv
        dx[r * 3 * d + j], dx[r * 3 * d + 2 * d + j] = dgu, dgcv
        dhp[k * d + j], hp_buf[k * d + j], rhp_buf[k * d + j] = dp, hp, rhps[r * d + j]
        t += step


@jit_kernel
def back_r(drhp, drhp_ext, has_drhp, dg_ext, has_dg, gates, hps, live, rows, dgur, dhp, dx, d, gcode):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < live.size * d:
        k, j = t // d, t % d
        r = rows[k]
        v = drhp[k * d + j]
        if has_drhp:
            v += drhp_ext[r * d + j]
        rg, hp = gates[r * 3 * d + d + j], hps[r * d + j]
        dr = v * hp
        if has_dg:
            dr += dg_ext[r * 3 * d + d + j]
        dgr = dr * _dact(rg, gcode)
        dgur[k * 2 * d + d + j], dx[r * 3 * d + d + j] = dgr, dgr
        dhp[k * d + j] += v * rg
        t += step
