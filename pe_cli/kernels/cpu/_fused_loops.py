"""numba loops of the fused kernels (kernels/cpu/fused.py), imported on first use (runtime/loops.py):
one pass over memory where the unfused kernels make two. Arithmetic is that of the loops they
replace (_pointwise_loops.py's add_mid or numpy's add of two same-shape arrays, then _activation_row_loops.relu), in the
same dtype, so results are bitwise equal."""

import numba
from numba import prange, uintp

from ._activation_loops import _rational_tanh, _sigmoid
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)
_pjit = numba.njit(cache=True, nogil=True, parallel=True)


def _add_mid_relu(rows):
    """The loop over rows ``rows`` (range or prange): inter[p, j, q] = x[p, j, q] + y[j] and
    out = relu(inter) (3-D arrays; y 1-D), compiled serial and parallel below."""

    def loop(x, y, inter, out):
        pre, n, post = x.shape
        zero = x.dtype.type(0)
        for p in rows(pre):
            for j in range(n):
                b = y[j]
                for q in range(post):
                    v = x[p, j, q] + b
                    inter[p, j, q] = v
                    out[p, j, q] = v if (v > zero or v != v) else zero

    return loop


add_mid_relu = _jit(_add_mid_relu(range))
add_mid_relu_parallel = _pjit(_add_mid_relu(prange))  # the rows p on numba's threads (pre > 1)


def _add_relu(chunks):
    """The loop over ``parts`` contiguous chunks (range or prange) of X and Y of the same shape
    (flat): inter = x + y and out = relu(inter), compiled serial and parallel below."""

    def loop(x, y, inter, out, parts):
        n = x.size
        zero = x.dtype.type(0)
        for p in chunks(parts):
            for i in range(uintp(n * p // parts), uintp(n * (p + 1) // parts)):
                v = x[i] + y[i]
                inter[i] = v
                out[i] = v if (v > zero or v != v) else zero

    return loop


add_relu = _jit(_add_relu(range))
add_relu_parallel = _pjit(_add_relu(prange))


# -- an add and tanh or sigmoid, float32: the attention's tanh(W_e e + W_d h) -----------------------
_ajit = numba.njit(cache=True, nogil=True, error_model="numpy")
_apjit = numba.njit(cache=True, nogil=True, error_model="numpy", parallel=True)
SIGMOID, TANH = 0, 1  # ``code`` of add_act


def _add_act(chunks, keep):
    """The loop over ``parts`` chunks (range or prange) of the a * b rows of X [a, b, c], flat:
    out = act(x + y), Y [ya, c] (ya 1 or a) broadcast over b, act (``code``) the tanh or sigmoid of
    the tanh and sigmoid ops' float32 loops (_activation_loops.py: the same bits); ``keep``: the sum is written
    to ``inter`` too. Compiled serial and parallel, with and without ``inter``, below: flat indices
    and no array that may alias the output, or LLVM does not vectorise (7.2 against 5.7 ms on one
    thread over the attention's [256, 40, 256])."""

    def loop(x, y, inter, out, a, b, c, code, parts):
        rows, per_y = a * b, y.size > c
        for part in chunks(parts):
            for r in range(rows * part // parts, rows * (part + 1) // parts):
                at, y_at = uintp(r * c), uintp((r // b) * c if per_y else 0)
                if code == TANH:
                    for q in range(uintp(c)):
                        v = x[at + q] + y[y_at + q]
                        if keep:
                            inter[at + q] = v
                        out[at + q] = _rational_tanh(v)
                else:
                    for q in range(uintp(c)):
                        v = x[at + q] + y[y_at + q]
                        if keep:
                            inter[at + q] = v
                        out[at + q] = _sigmoid(v)

    return loop


add_act = _ajit(_add_act(range, False))  # (``inter`` unused: pass any array)
add_act_parallel = _apjit(_add_act(prange, False))
add_act_keep = _ajit(_add_act(range, True))
add_act_keep_parallel = _apjit(_add_act(prange, True))
