"""numba loops of the fused kernels (kernels/cpu/fused.py), imported on first use (_numba.py):
one pass over memory where the unfused kernels make two. Arithmetic is that of the loops they
replace (_pointwise_loops.py: add_mid or numpy's add of two same-shape arrays, then relu), in the
same dtype, so results are bitwise equal."""
import numba
from numba import prange, uintp

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
add_mid_relu_parallel = _pjit(_add_mid_relu(prange))      # the rows p on numba's threads (pre > 1)


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
