"""numba loops of dynamic_lstm's CPU kernels (kernels/cpu/lstm.py): per time step, after the GEMM of
the live sequences' hidden states (h' W), three passes compute the gates, the cell and the hidden
state and store what the backward pass reads; backward, one pass per step gives the gates' gradients
before the GEMM that carries the hidden state's gradient back. The arithmetic is kernels/lstm_math.py's
(the numpy reference), element by element. The activations (exp, tanh) are numpy's vectorised calls
between the passes (kernels/cpu/lstm.py): numba's exp is a libm call per value, and a step doing
them in its pass took 595 us where numpy's take 60-110 (64 x 128, float32, one thread); the
derivatives are _gru_loops._dact, from the outputs.

The live sequences of a step are the first ``n`` of the length-sorted order (lstm_math.schedule), so
the carried states h_s, c_s, dh_s, dc_s are [sequences, D] in that order and a step reads their
first n rows; ``rows`` gives each one's row of the LoD input at that step. Gate blocks are Fluid's
(candidate, input, forget, output); ``peep``: Bias[4D:7D] holds the peepholes W_ic, W_fc, W_oc."""
from numba import njit

from ._gru_loops import _dact


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
def backward_step(d_hidden, d_cell, has_d_cell, cellv, acv, saved, bias, rows, dh_s, dc_s, dg, dx, db_peep, gate,
                  cell_act, cand, peep):
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
