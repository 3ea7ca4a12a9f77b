"""numba loops of the lstm op's CPU kernels (kernels/cpu/lstm.py): per time step, after the GEMM of
the live sequences' hidden states (h' W), three passes compute the gates, the cell and the hidden
state and store what the backward pass reads; backward, one pass per step gives the gates' gradients
before the GEMM that carries the hidden state's gradient back. The arithmetic is kernels/lstm_math.py's
(the numpy reference), element by element. In float32, ``forward_sequence`` and ``backward_sequence``
run every step in one call, the GEMMs through CBLAS (runtime/cblas.py) and the activations vectorised in
float32 (_activation_loops.py), so the GIL is released for the whole pass and two CPU devices' LSTMs
compute at once (they took turns for it between numpy calls: docs/PERFORMANCE.md, sixth session).
In float64 kernels/cpu/lstm.py runs the steps itself, the activations (exp, tanh) numpy's vectorised
calls between the passes (numba's exp is a libm call per value: a step doing them in its pass took
595 us where numpy's take 60-110; 64 x 128, float32, one thread). The derivatives are
_gru_loops._dact, from the outputs.

The live sequences of a step are the first ``n`` of the length-sorted order (lstm_math.schedule), so
the carried states h_s, c_s, dh_s, dc_s are [sequences, D] in that order and a step reads their
first n rows; ``rows`` gives each one's row of the LoD input at that step. Gate blocks are Fluid's
(candidate, input, forget, output); ``peep``: Bias[4D:7D] holds the peepholes W_ic, W_fc, W_oc."""

import numpy as np
from numba import njit, prange

from ._activation_loops import activate
from ._gru_loops import _dact, group, live_count, live_rows
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@njit(cache=True, nogil=True)
def forward_pre(x, hw, bias, rows, c_s, peep):
    """The step's pre-activation gates into hw [n, 4D] (= h' W on entry): x at ``rows`` + hw + bias,
    the input and forget gates' peepholes on the previous cell c_s [:n]."""
    d = c_s.shape[1]
    for k in range(rows.size):
        r = rows[k]
        for j in range(4 * d):
            hw[k, j] = x[r, j] + hw[k, j] + bias[j]
        if peep:
            for j in range(d):
                hw[k, d + j] = hw[k, d + j] + c_s[k, j] * bias[4 * d + j]
                hw[k, 2 * d + j] = hw[k, 2 * d + j] + c_s[k, j] * bias[5 * d + j]


@njit(cache=True, nogil=True)
def forward_cell(g, c_s, bias, c, peep):
    """The new cell c [n, D] = f c' + i candidate from the activated g [n, 4D]; with peepholes, the
    output gate's pre-activation gets c W_oc."""
    d = c_s.shape[1]
    for k in range(c.shape[0]):
        for j in range(d):
            cv = g[k, 2 * d + j] * c_s[k, j] + g[k, d + j] * g[k, j]
            c[k, j] = cv
            if peep:
                g[k, 3 * d + j] = g[k, 3 * d + j] + cv * bias[6 * d + j]


@njit(cache=True, nogil=True)
def forward_out(g, c, ac, rows, h_s, c_s, hidden, cell, saved):
    """h = o act(c) (``ac``); stores hidden, cell and saved (i, f, candidate, o, previous c and h) at
    ``rows``, then the new states into h_s, c_s [:n]."""
    d = h_s.shape[1]
    for k in range(rows.size):
        r = rows[k]
        for j in range(d):
            h = g[k, 3 * d + j] * ac[k, j]
            hidden[r, j], cell[r, j] = h, c[k, j]
            saved[r, 0, j], saved[r, 1, j], saved[r, 2, j] = g[k, d + j], g[k, 2 * d + j], g[k, j]
            saved[r, 3, j], saved[r, 4, j], saved[r, 5, j] = g[k, 3 * d + j], c_s[k, j], h_s[k, j]
            h_s[k, j], c_s[k, j] = h, c[k, j]


@njit(cache=True, nogil=True)
def backward_step(
    d_hidden, d_cell, has_d_cell, cellv, acv, saved, bias, rows, dh_s, dc_s, dg, dx, db_peep, gate, cell_act, cand, peep
):
    """One step back (``acv``: the cell activation of cellv, computed beforehand): from Hidden's gradient at ``rows`` plus the carried dh_s [:n] (h's gradient
    through the next step's GEMM), the pre-activation gates' gradients dg [n, 4D] (also written to
    dx at ``rows``) and the previous cell's gradient into dc_s [:n]; with peepholes their gradients
    added to db_peep [3D]."""
    d = dh_s.shape[1]
    for k in range(rows.size):
        r = rows[k]
        for j in range(d):
            i, f, cd, o, cp = saved[r, 0, j], saved[r, 1, j], saved[r, 2, j], saved[r, 3, j], saved[r, 4, j]
            c = cellv[r, j]
            ac = acv[r, j]
            dh = d_hidden[r, j] + dh_s[k, j]
            dgo = dh * ac * _dact(o, gate)
            dc = dc_s[k, j] + dh * o * _dact(ac, cell_act)
            if has_d_cell:
                dc = dc + d_cell[r, j]
            if peep:
                dc = dc + dgo * bias[6 * d + j]
            dgi, dgf, dgc = dc * cd * _dact(i, gate), dc * cp * _dact(f, gate), dc * i * _dact(cd, cand)
            dcp = dc * f
            if peep:
                dcp = dcp + dgi * bias[4 * d + j] + dgf * bias[5 * d + j]
                db_peep[j] += dgi * cp
                db_peep[d + j] += dgf * cp
                db_peep[2 * d + j] += dgo * c
            dg[k, j], dg[k, d + j], dg[k, 2 * d + j], dg[k, 3 * d + j] = dgc, dgi, dgf, dgo
            dx[r, j], dx[r, d + j], dx[r, 2 * d + j], dx[r, 3 * d + j] = dgc, dgi, dgf, dgo
            dc_s[k, j] = dcp


@njit(cache=True, nogil=True)
def forward_sequence(
    gemm, x, w, bias, offs, order, reverse, h_s, c_s, hidden, cell, saved, hw, c, ac, peep, gate, cell_act, cand
):
    """The whole forward pass, every time step, without the GIL (float32; ``gemm``: runtime/cblas.py's
    CBLAS GEMM): the steps of kernels/cpu/lstm.py's per-step path, with the activations of
    _activation_loops.py. ``order``: the sequences by decreasing length (stable); at step t the
    live ones are its first n, those longer than t."""
    d, nseq = w.shape[0], order.size
    rows = np.empty(nseq, np.int64)
    n = nseq
    steps = offs[order[0] + 1] - offs[order[0]] if nseq else 0
    for t in range(steps):
        n = live_count(offs, order, n, t)
        live_rows(offs, order, n, t, reverse, rows)
        r = rows[:n]
        gemm(101, 111, 111, n, 4 * d, d, 1.0, h_s.ctypes.data, d, w.ctypes.data, 4 * d, 0.0, hw.ctypes.data, 4 * d)
        g = hw[:n]
        forward_pre(x, g, bias, r, c_s, peep)
        activate(g, n, d, 3 * d if peep else 4 * d, gate)  # o too where no peephole reads c
        activate(g, n, 0, d, cand)
        forward_cell(g, c_s, bias, c[:n], peep)
        if peep:
            activate(g, n, 3 * d, 4 * d, gate)
        ac[:n] = c[:n]
        activate(ac, n, 0, d, cell_act)
        forward_out(g, c[:n], ac[:n], r, h_s, c_s, hidden, cell, saved)


@njit(cache=True, nogil=True)
def backward_sequence(
    gemm, d_hidden, d_cell, has_d_cell, cellv, acv, saved, w, bias, offs, order, reverse, dh_s, dc_s, dg, dx,
    db_peep, gate, cell_act, cand, peep,
):  # fmt: skip
    """The whole backward pass without the GIL (float32): ``acv`` (the cell activation of cellv) computed
    here, then backward_steps."""
    activate(acv, acv.shape[0], 0, w.shape[0], cell_act)
    backward_steps(
        gemm, d_hidden, d_cell, has_d_cell, cellv, acv, saved, w, bias, offs, order, reverse,
        dh_s, dc_s, dg, dx, db_peep, gate, cell_act, cand, peep,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def backward_steps(
    gemm, d_hidden, d_cell, has_d_cell, cellv, acv, saved, w, bias, offs, order, reverse, dh_s, dc_s, dg, dx,
    db_peep, gate, cell_act, cand, peep,
):  # fmt: skip
    """backward_step per time step, last first, then dh_s[:n] = dg[:n] W^T by ``gemm``."""
    d, nseq = w.shape[0], order.size
    rows = np.empty(nseq, np.int64)
    steps = offs[order[0] + 1] - offs[order[0]] if nseq else 0
    n = 0
    for t in range(steps - 1, -1, -1):
        while n < nseq and offs[order[n] + 1] - offs[order[n]] > t:
            n += 1
        live_rows(offs, order, n, t, reverse, rows)
        backward_step(
            d_hidden, d_cell, has_d_cell, cellv, acv, saved, bias, rows[:n], dh_s, dc_s, dg[:n], dx, db_peep,
            gate, cell_act, cand, peep,
        )  # fmt: skip
        gemm(101, 111, 112, n, d, 4 * d, 1.0, dg.ctypes.data, 4 * d, w.ctypes.data, 4 * d, 0.0, dh_s.ctypes.data, d)


# -- the sequences in groups, one a thread -----------------------------------------------------------------
# A batch of many sequences runs its recurrence in ``parts`` groups (kernels/cpu/gru.sequence_groups, the
# device's threads on a quiet machine), as _gru_loops.py's groups, each with its carried states (kept in
# its own length order) and scratch ([parts, ...]); the peepholes' gradients are summed group by group, in
# order.


def _forward_groups(blocks):
    def forward_groups(
        gemm, x, w, bias, offs, order, reverse, h_s, c_s, hidden, cell, saved, hw, c, ac, peep, gate, cell_act, cand,
        sub, h_g, c_g,
    ):  # fmt: skip
        """forward_sequence over the groups (sub.shape[0] of them; sub, h_g, c_g: their orders and
        states, [parts, ceil(sequences / parts), ...]; hw, c, ac: [parts, ...] of forward_sequence's)."""
        parts = sub.shape[0]
        for p in blocks(parts):
            ng = group(order, p, parts, sub)
            for k in range(ng):
                h_g[p, k] = h_s[p + k * parts]
                c_g[p, k] = c_s[p + k * parts]
            forward_sequence(
                gemm, x, w, bias, offs, sub[p][:ng], reverse, h_g[p][:ng], c_g[p][:ng], hidden, cell, saved,
                hw[p], c[p], ac[p], peep, gate, cell_act, cand,
            )  # fmt: skip

    return forward_groups


def _backward_groups(blocks):
    def backward_groups(
        gemm, d_hidden, d_cell, has_d_cell, cellv, acv, saved, w, bias, offs, order, reverse, dh_s, dc_s, dg, dx,
        db_peep, gate, cell_act, cand, peep, sub, dh_g, dc_g, db_g,
    ):  # fmt: skip
        """backward_sequence over the groups (sub, dh_g, dc_g as forward_groups'; dg [parts, ...]; db_g
        [parts, 3D] zeros), then each group's carried gradients into dh_s, dc_s and db_g's sum, group by
        group, added to db_peep."""
        parts = sub.shape[0]
        activate(acv, acv.shape[0], 0, w.shape[0], cell_act)
        for p in blocks(parts):
            ng = group(order, p, parts, sub)
            backward_steps(
                gemm, d_hidden, d_cell, has_d_cell, cellv, acv, saved, w, bias, offs, sub[p][:ng], reverse,
                dh_g[p][:ng], dc_g[p][:ng], dg[p], dx, db_g[p], gate, cell_act, cand, peep,
            )  # fmt: skip
        for p in range(parts):
            for k in range((order.size - p + parts - 1) // parts):
                dh_s[p + k * parts] = dh_g[p, k]
                dc_s[p + k * parts] = dc_g[p, k]
            if peep:
                for j in range(db_peep.size):
                    db_peep[j] += db_g[p, j]

    return backward_groups


forward_groups = njit(cache=True, nogil=True)(_forward_groups(range))
forward_groups_parallel = njit(cache=True, nogil=True, parallel=True)(_forward_groups(prange))
backward_groups = njit(cache=True, nogil=True)(_backward_groups(range))
backward_groups_parallel = njit(cache=True, nogil=True, parallel=True)(_backward_groups(prange))
