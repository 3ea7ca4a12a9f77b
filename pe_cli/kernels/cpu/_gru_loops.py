"""numba loops of the GRU kernels (kernels/cpu/gru.py): per time step, around the GEMMs over the live
sequences (h' W_ur, then (r h') W_c), one pass for the update and reset gates and one for the
candidate and hidden state; backward the same in reverse, element by element as the CUDA kernels
of kernels/cuda/gru.py do. Activation codes: 0 sigmoid, 1 tanh, 2 relu, 3 identity. tanh is
1 - 2 / (1 + exp(2x)): numba's math.tanh on float32 was measured 7x slower than numpy's np.tanh
(4.0 ms against 0.55 ms for 200,000 values), exp-based forms about as fast as numpy's.
``forward_sequence`` and ``backward_sequence`` run every step of a pass in one call without the GIL,
the GEMMs through CBLAS (runtime/cblas.py), so two CPU devices' GRUs compute at once."""

import math

import numpy as np
from numba import njit, prange
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@njit(cache=True, nogil=True, inline="always")
def _act(x, code):
    if code == 0:  # Fluid's recurrent sigmoid: the input clipped to [-40, 13] (kernels.common.SIGMOID_MIN)
        return 1.0 / (1.0 + math.exp(-(-40.0 if x < -40.0 else (13.0 if x > 13.0 else x))))
    if code == 1:
        return 1.0 - 2.0 / (1.0 + math.exp(2.0 * x))
    if code == 2:
        return max(x, 0.0)
    return x


@njit(cache=True, nogil=True, inline="always")
def _dact(y, code):
    """The activation's derivative from its output y."""
    if code == 0:
        return y * (1.0 - y)
    if code == 1:
        return 1.0 - y * y
    if code == 2:
        return 1.0 if y > 0 else 0.0
    return 1.0


@njit(cache=True, nogil=True)
def forward_ur(x, hw, bias, live, rows, h_state, gates, rhp_buf, rhps, hps, gate):
    """u, r of the live rows (x [T, 3D], hw [n, 2D] = h' W_ur) into gates [T, 3D]; r h' into rhp_buf
    [n, D] (the next GEMM's input) and rhps [T, D]; h' into hps [T, D]."""
    d = h_state.shape[1]
    for k in range(live.size):
        r, s = rows[k], live[k]
        for j in range(d):
            hp = h_state[s, j]
            u = _act(x[r, j] + hw[k, j] + bias[j], gate)
            rg = _act(x[r, d + j] + hw[k, d + j] + bias[d + j], gate)
            gates[r, j], gates[r, d + j] = u, rg
            rhp_buf[k, j] = rg * hp
            rhps[r, j], hps[r, j] = rg * hp, hp


@njit(cache=True, nogil=True)
def forward_c(x, hc, bias, live, rows, h_state, gates, hidden, cand, origin):
    """The candidate (hc [n, D] = (r h') W_c) and the hidden state of the live rows; updates h_state."""
    d = h_state.shape[1]
    for k in range(live.size):
        r, s = rows[k], live[k]
        for j in range(d):
            c = _act(x[r, 2 * d + j] + hc[k, j] + bias[2 * d + j], cand)
            u, hp = gates[r, j], h_state[s, j]
            h = u * hp + (1.0 - u) * c if origin else u * c + (1.0 - u) * hp
            gates[r, 2 * d + j] = c
            hidden[r, j] = h
            h_state[s, j] = h


@njit(cache=True, nogil=True)
def backward_c(dhid, dh_state, gates, hps, rhps, live, rows, dgur, dgc, dhp, hp_buf, rhp_buf, dx, gate, cand, origin):
    """The update gate's and the candidate's gradients (pre-activation) of the live rows from the
    hidden state's (dhid [T, D] plus the carried dh_state); dhp gets h''s direct part."""
    d = dh_state.shape[1]
    for k in range(live.size):
        r, s = rows[k], live[k]
        for j in range(d):
            dh = dhid[r, j] + dh_state[s, j]
            u, c, hp = gates[r, j], gates[r, 2 * d + j], hps[r, j]
            if origin:
                du, dc, dp = dh * (hp - c), dh * (1.0 - u), dh * u
            else:
                du, dc, dp = dh * (c - hp), dh * u, dh * (1.0 - u)
            dgu, dgcv = du * _dact(u, gate), dc * _dact(c, cand)
            dgur[k, j], dgc[k, j] = dgu, dgcv
            dx[r, j], dx[r, 2 * d + j] = dgu, dgcv
            dhp[k, j], hp_buf[k, j], rhp_buf[k, j] = dp, hp, rhps[r, j]


@njit(cache=True, nogil=True)
def backward_r(drhp, gates, hps, rows, dgur, dhp, dx, gate):
    """The reset gate's gradient from drhp [n, D] = d(r h') (dgc W_c^T); adds r d(r h') to dhp."""
    d = dhp.shape[1]
    for k in range(rows.size):
        r = rows[k]
        for j in range(d):
            v, rg = drhp[k, j], gates[r, d + j]
            dgr = v * hps[r, j] * _dact(rg, gate)
            dgur[k, d + j], dx[r, d + j] = dgr, dgr
            dhp[k, j] += v * rg


@njit(cache=True, nogil=True)
def live_count(offs, order, n, t):
    """How many of the first ``n`` sequences of ``order`` (by decreasing length) are longer than t."""
    while n > 0 and offs[order[n - 1] + 1] - offs[order[n - 1]] <= t:
        n -= 1
    return n


@njit(cache=True, nogil=True)
def live_rows(offs, order, n, t, reverse, rows):
    """rows[:n]: the input row at step t of each of the first ``n`` sequences of ``order`` (the
    sequences by decreasing length: at step t the live ones are its first n, those longer than t)."""
    for k in range(n):
        s = order[k]
        length = offs[s + 1] - offs[s]
        rows[k] = offs[s] + (length - 1 - t if reverse else t)


@njit(cache=True, nogil=True)
def forward_sequence(
    gemm,
    x,
    w_ur,
    w_c,
    bias,
    offs,
    order,
    reverse,
    h_state,
    gates,
    rhps,
    hps,
    hidden,
    hp_buf,
    hw,
    rhp_buf,
    hc,
    gate,
    cand,
    origin,
):
    """Every step of the forward pass (kernels/cpu/gru.py's per-step path): h' of the live sequences
    gathered into hp_buf, hw = h' W_ur, forward_ur, hc = (r h') W_c, forward_c."""
    d, nseq = h_state.shape[1], order.size
    rows = np.empty(nseq, np.int64)
    n = nseq
    steps = offs[order[0] + 1] - offs[order[0]] if nseq else 0
    for t in range(steps):
        n = live_count(offs, order, n, t)
        live_rows(offs, order, n, t, reverse, rows)
        live = order[:n]
        for k in range(n):
            hp_buf[k] = h_state[live[k]]
        gemm(
            101, 111, 111, n, 2 * d, d, 1.0, hp_buf.ctypes.data, d, w_ur.ctypes.data, 2 * d, 0.0, hw.ctypes.data, 2 * d
        )
        forward_ur(x, hw[:n], bias, live, rows[:n], h_state, gates, rhp_buf[:n], rhps, hps, gate)
        gemm(101, 111, 111, n, d, d, 1.0, rhp_buf.ctypes.data, d, w_c.ctypes.data, d, 0.0, hc.ctypes.data, d)
        forward_c(x, hc[:n], bias, live, rows[:n], h_state, gates, hidden, cand, origin)


@njit(cache=True, nogil=True)
def backward_sequence(
    gemm,
    d_hidden,
    dh_state,
    gates,
    hps,
    rhps,
    w_ur,
    w_c,
    offs,
    order,
    reverse,
    dgur,
    dgc,
    dhp,
    hp_buf,
    rhp_buf,
    drhp,
    dhw,
    dx,
    gate,
    cand,
    origin,
):
    """Every step of the backward pass, last first: backward_c, drhp = dgc W_c^T, backward_r, then
    the live sequences' dh_state = dhp + dgur W_ur^T."""
    d, nseq = dh_state.shape[1], order.size
    rows = np.empty(nseq, np.int64)
    steps = offs[order[0] + 1] - offs[order[0]] if nseq else 0
    n = 0
    for t in range(steps - 1, -1, -1):
        while n < nseq and offs[order[n] + 1] - offs[order[n]] > t:
            n += 1
        live_rows(offs, order, n, t, reverse, rows)
        live, r = order[:n], rows[:n]
        backward_c(
            d_hidden,
            dh_state,
            gates,
            hps,
            rhps,
            live,
            r,
            dgur[:n],
            dgc[:n],
            dhp[:n],
            hp_buf[:n],
            rhp_buf[:n],
            dx,
            gate,
            cand,
            origin,
        )
        gemm(101, 111, 112, n, d, d, 1.0, dgc.ctypes.data, d, w_c.ctypes.data, d, 0.0, drhp.ctypes.data, d)
        backward_r(drhp[:n], gates, hps, r, dgur[:n], dhp[:n], dx, gate)
        gemm(101, 111, 112, n, d, 2 * d, 1.0, dgur.ctypes.data, 2 * d, w_ur.ctypes.data, 2 * d, 0.0, dhw.ctypes.data, d)
        for k in range(n):
            s = live[k]
            for j in range(d):
                dh_state[s, j] = dhp[k, j] + dhw[k, j]


# -- the sequences in groups, one a thread (kernels/cpu/gru.py, lstm.py: sequence_groups) ---------------------
# Group p holds every parts-th sequence of the length order from the p-th (the groups' lengths are alike),
# with scratch of its own ([parts, ...]); it writes only its sequences' rows and states. The groups are the
# same on however many threads run them, so the numbers do not depend on which twin ran.


@njit(cache=True, nogil=True)
def group(order, p, parts, sub):
    """sub[p][:ng]: group p's sequences of ``order``; returns ng."""
    ng = (order.size - p + parts - 1) // parts
    for k in range(ng):
        sub[p, k] = order[p + k * parts]
    return ng


def _forward_groups(blocks):
    def forward_groups(
        gemm, x, w_ur, w_c, bias, offs, order, reverse, h_state, gates, rhps, hps, hidden, hp_buf, hw, rhp_buf, hc,
        gate, cand, origin, sub,
    ):  # fmt: skip
        """forward_sequence over the groups (sub [parts, ceil(sequences / parts)]: their orders; the
        scratch hp_buf, hw, rhp_buf, hc: [parts, ...] of forward_sequence's)."""
        parts = sub.shape[0]
        for p in blocks(parts):
            ng = group(order, p, parts, sub)
            forward_sequence(
                gemm, x, w_ur, w_c, bias, offs, sub[p][:ng], reverse, h_state, gates, rhps, hps, hidden,
                hp_buf[p], hw[p], rhp_buf[p], hc[p], gate, cand, origin,
            )  # fmt: skip

    return forward_groups


def _backward_groups(blocks):
    def backward_groups(
        gemm, d_hidden, dh_state, gates, hps, rhps, w_ur, w_c, offs, order, reverse, dgur, dgc, dhp, hp_buf,
        rhp_buf, drhp, dhw, dx, gate, cand, origin, sub,
    ):  # fmt: skip
        """backward_sequence over the groups (sub as forward_groups'; the scratch [parts, ...])."""
        parts = sub.shape[0]
        for p in blocks(parts):
            ng = group(order, p, parts, sub)
            backward_sequence(
                gemm, d_hidden, dh_state, gates, hps, rhps, w_ur, w_c, offs, sub[p][:ng], reverse, dgur[p], dgc[p],
                dhp[p], hp_buf[p], rhp_buf[p], drhp[p], dhw[p], dx, gate, cand, origin,
            )  # fmt: skip

    return backward_groups


forward_groups = njit(cache=True, nogil=True)(_forward_groups(range))
forward_groups_parallel = njit(cache=True, nogil=True, parallel=True)(_forward_groups(prange))
backward_groups = njit(cache=True, nogil=True)(_backward_groups(range))
backward_groups_parallel = njit(cache=True, nogil=True, parallel=True)(_backward_groups(prange))
