"""numpy replicas of the hot numba loops, for a first run on a machine: the same arguments, the same
outputs, to the bit (tests/kernels/test_replicas.py), so that a run's numbers never depend on
whether a loop was compiled yet. A kernel runs one (``_numba.loop_or``) only while a helper process
compiles its loop (runtime/compile_helper.py); a step takes a few times longer with them, none waits for numba.

Each replica does the loop's arithmetic in the loop's order: elementwise expressions in the arrays'
dtype; sums in float64 from 0.0 in the loop's sequence (numpy reduces a non-innermost axis in index
order, so ``initial=0.0`` reductions over a leading axis are sequential); the convolutions call the
same CBLAS GEMM with the same arguments through ctypes, around columns built by exact copies; the
max's NaN and first-hit rules as written in the loops. The convolutions' replicas are in
_conv_replicas.py.
"""

import math

import numpy as np

from ...base.activations import ROWS

quiet = np.errstate(all="ignore")  # the loops make inf and NaN silently: so do their replicas

# -- pointwise (_pointwise_loops.py) ------------------------------------------------------------------


# relu and its gradient as two vectorised passes, not np.where: np.where branches on each element,
# and on a mask of random signs it took 110 us for 32,768 float32 values (3.4 ns each, mispredicted
# branches) where these take 9 (2026-11-25, the Xeon VM)


@quiet
def relu(x, out):
    """max(x, 0) keeps NaN and x > 0 and gives -0.0 for -0.0; + 0.0 then makes that +0.0, as the loop."""
    zero = x.dtype.type(0)
    np.maximum(x, zero, out=out)
    np.add(out, zero, out=out)


@quiet
def relu_grad(out, dout, dx):
    """dout * 1 where out > 0 (dout to the bit), dout * 0 elsewhere: the loop's two cases."""
    np.multiply(dout, out > 0, out=dx)


@quiet
def square(x, out):
    """x * x: the square row's forward, into out."""
    np.multiply(x, x, out=out)


def _derivative(name):
    """The activation ``name``'s gradient loop: its row's derivative (pe_cli/base/activations.py) into dx."""
    derivative = ROWS[name].derivative

    @quiet
    def replica(a, dout, dx):
        np.copyto(dx, derivative(a, dout))

    replica.__name__ = replica.__qualname__ = f"{name}_grad"
    return replica


tanh_grad, sigmoid_grad, square_grad = _derivative("tanh"), _derivative("sigmoid"), _derivative("square")


@quiet
def add_relu(x, y, inter, out, parts):
    """_fused_loops.add_relu: numpy's add, then relu."""
    np.add(x, y, out=inter)
    relu(inter, out)


@quiet
def add_mid(x, y, out):
    np.add(x, y[:, None], out=out)


@quiet
def sum_outer(d, dy):
    pre, n, post = d.shape
    acc = np.add.reduce(d.reshape(pre, n * post).astype(np.float64), axis=0, initial=0.0)  # row by row
    a = acc.reshape(n, post)
    body = post - post % 8
    s = np.add.reduce(a[:, :body].reshape(n, body // 8, 8), axis=1, initial=0.0)  # [n, 8]
    for q in range(body, post):
        s[:, 0] += a[:, q]
    dy[:] = ((s[:, 0] + s[:, 1]) + (s[:, 2] + s[:, 3])) + ((s[:, 4] + s[:, 5]) + (s[:, 6] + s[:, 7]))


@quiet
def momentum(p, g, v, lr, mu, nesterov, p_out, v_out):
    vo = v * mu + g
    v_out[:] = vo
    p_out[:] = p - (g + vo * mu) * lr if nesterov else p - lr * vo


@quiet
def sgd(p, g, lr, p_out):
    p_out[:] = p - lr * g


@quiet
def adam(p, g, m1, m2, lr_t, beta1, beta2, c1, c2, eps, p_out, m1_out, m2_out):
    a = beta1 * m1 + c1 * g
    b = beta2 * m2 + c2 * g * g
    p_out[:] = p - lr_t * (a / (np.sqrt(b) + eps))  # read p before m1 and m2 change: they may be outputs
    m1_out[:], m2_out[:] = a, b


def adam_in_place(p, g, m1, m2, lr_t, beta1, beta2, c1, c2, eps):
    adam(p, g, m1, m2, lr_t, beta1, beta2, c1, c2, eps, p, m1, m2)


def momentum_in_place(p, g, v, lr, mu, nesterov):
    momentum(p, g, v, lr, mu, nesterov, p, v)  # each value computed whole, then stored


def sgd_in_place(p, g, lr):
    sgd(p, g, lr, p)


# -- scale, the sum and the position encoding (_elementwise_loops.py) ---------------------------------


@quiet
def scale(x, s, b, bias_after, out):
    if bias_after:
        np.add(np.multiply(x, s, out=out), b, out=out)
    else:
        np.multiply(np.add(x, b, out=out), s, out=out)


@quiet
def add3(x, y, z, out):
    np.add(np.add(x, y, out=out), z, out=out)


@quiet
def add4(w, x, y, z, out):
    np.add(np.add(np.add(w, x, out=out), y, out=out), z, out=out)


@quiet
def add_table_rows(x, alpha, table, out):
    m = table.shape[0]
    out[:] = ((x * alpha).reshape(-1, m, x.shape[1]) + table).reshape(out.shape)


# -- the split GEMMs and their epilogue (_blas_loops.py): the same CBLAS calls on the same blocks ------


@quiet
def epilogue(block, bias, gate, act):
    """A block of c (a view): + bias (its columns), then relu or relu's gradient, as the loop (also
    math.matmul2d's, after a GEMM too small to split)."""
    if bias.size:
        np.add(block, bias, out=block)
    if act == 1:
        relu(block, block)
    elif act == 2:
        relu_grad(gate, block, block)


def epilogue_rect(c, i0, i1, j0, j1, bias, gate, act):
    """_blas_loops._epilogue: rows i0:i1, columns j0:j1 of c."""
    epilogue(c[i0:i1, j0:j1], bias[j0:j1] if bias.size else bias, gate[i0:i1, j0:j1] if act == 2 else gate, act)


def gemm_blocks(gemm, trans_a, trans_b, a, b, c, bias, gate, act, parts, by_cols):
    m, n = c.shape
    k = a.shape[0] if trans_a == 112 else a.shape[1]
    lda, ldb, size = a.shape[1], b.shape[1], a.itemsize
    span = n if by_cols else m
    for p in range(parts):
        s0, s1 = span * p // parts, span * (p + 1) // parts
        if s1 <= s0:
            continue
        if by_cols:
            first = s0 if trans_b == 111 else s0 * ldb
            gemm(
                101,
                trans_a,
                trans_b,
                m,
                s1 - s0,
                k,
                1.0,
                a.ctypes.data,
                lda,
                b.ctypes.data + first * size,
                ldb,
                0.0,
                c.ctypes.data + s0 * size,
                n,
            )
            epilogue(c[:, s0:s1], bias[s0:s1], gate[:, s0:s1] if act == 2 else gate, act)
        else:
            first = s0 * lda if trans_a == 111 else s0
            gemm(
                101,
                trans_a,
                trans_b,
                s1 - s0,
                n,
                k,
                1.0,
                a.ctypes.data + first * size,
                lda,
                b.ctypes.data,
                ldb,
                0.0,
                c.ctypes.data + s0 * n * size,
                n,
            )
            epilogue(c[s0:s1], bias, gate[s0:s1] if act == 2 else gate, act)


def gemm_k_blocks(gemm, trans_a, trans_b, a, b, c, partial, bias, gate, act, parts):
    """The partial products of the blocks of k, then c = P0 + P1 + ... in that order."""
    m, n = c.shape
    k = a.shape[0] if trans_a == 112 else a.shape[1]
    lda, ldb, size = a.shape[1], b.shape[1], a.itemsize
    for p in range(parts):
        k0, k1 = k * p // parts, k * (p + 1) // parts
        first_a = k0 if trans_a == 111 else k0 * lda
        first_b = k0 * ldb if trans_b == 111 else k0
        gemm(
            101,
            trans_a,
            trans_b,
            m,
            n,
            k1 - k0,
            1.0,
            a.ctypes.data + first_a * size,
            lda,
            b.ctypes.data + first_b * size,
            ldb,
            0.0,
            partial[p].ctypes.data,
            n,
        )
    np.copyto(c, partial[0])
    for q in range(1, parts):
        np.add(c, partial[q], out=c)
    epilogue(c, bias, gate, act)


# -- max pooling, 2x2 windows at stride 2 (_pool_loops.py) -------------------------------------------


def _corners(a, ho, wo):
    return [a[:, :, i : 2 * ho : 2, j : 2 * wo : 2] for i in (0, 1) for j in (0, 1)]


@quiet
def max_pool_2x2(x, ho, wo, out):
    m = np.full(out.shape, -np.inf, dtype=x.dtype)
    for v in _corners(x, ho, wo):
        m = np.where((v > m) | (v != v), v, m)
    out[...] = m


@quiet
def max_pool_2x2_grad(x, out, dout, dx):
    """The first element of each window equal to its maximum takes the gradient: hit = (v == max)
    times what the earlier elements left, as the loop's arithmetic masks."""
    ho, wo = out.shape[2], out.shape[3]
    dx[...] = 0
    left = np.ones(out.shape, dtype=dx.dtype)
    for v, d in zip(_corners(x, ho, wo), _corners(dx, ho, wo)):
        hit = (v == out).astype(dx.dtype) * left
        left = left - hit
        d[...] = dout * hit


# -- the learning-rate schedules (_schedule_loops.py): Python's float64 math, the C library's pow, exp and cos -----


def _pow(a, b):
    """C's pow(a, b) (inf where Python's would raise OverflowError)."""
    try:
        return a**b
    except OverflowError:
        return -math.inf if a < 0 and b % 2 == 1 else math.inf


def _real(a, b):
    return a > 0.0 or (a == 0.0 and not b < 0.0) or a != a or b != b or (a < 0.0 and math.floor(b) == b)


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def lr_rate(step_in, base, out, kind, p, boundaries, values):
    """The rate of schedule ``kind`` at ``step_in[0]`` into out[0]: 0 where it is no real number, else -1."""
    step = float(step_in[0])
    p = [float(v) for v in p]
    if kind in (0, 1, 2):  # exponential, natural_exp, inverse_time: of step / decay_steps (staircase: its floor)
        div = step / p[0]
        div = float(math.floor(div)) if p[2] != 0.0 else div
        if (kind == 0 and not _real(p[1], div)) or (kind == 2 and 1.0 + p[1] * div == 0.0):
            return 0
        rate = (
            base * _pow(p[1], div)
            if kind == 0
            else base * _exp(-p[1] * div)
            if kind == 1
            else base / (1.0 + p[1] * div)
        )
    elif kind == 3:  # polynomial: (base - end) * (1 - step / steps) ** power + end
        steps = p[0]
        if p[5] != 0.0:  # cycle: steps times ceil(step / steps), 1 at step 0
            steps = steps * (float(math.ceil(step / steps)) if step > 0 else 1.0)
        else:
            step = min(step, steps)
        left = 1.0 - step / steps
        if not _real(left, p[4]):
            return 0
        rate = (base - p[3]) * _pow(left, p[4]) + p[3]
    elif kind == 4:  # piecewise: values[i] for the first boundaries[i] > step, else the last value
        rate = next((float(v) for b, v in zip(boundaries, values) if step < b), float(values[-1]))
    elif kind == 5:  # cosine: base / 2 * (cos(floor(step / step_each_epoch) * pi / epochs) + 1)
        epoch = float(math.floor(step / p[6]))
        rate = base * 0.5 * (math.cos(epoch * math.pi / p[7]) + 1.0)
    elif kind == 6:  # noam: base * d_model ** -0.5 * min(step ** -0.5, warmup_steps ** -1.5 * step)
        if not (_real(p[8], -0.5) and _real(p[9], -1.5)):
            return 0
        rate = base * _pow(p[8], -0.5) * min(_pow(step, -0.5) if step > 0 else math.inf, _pow(p[9], -1.5) * step)
    else:  # linear_warmup: from start_lr to end_lr over warmup_steps, then base
        rate = p[10] + (p[11] - p[10]) * step / p[9] if step < p[9] else base
    with np.errstate(over="ignore"):  # (a rate beyond float32's range: inf, as the loop's)
        out[0] = rate
    return -1
