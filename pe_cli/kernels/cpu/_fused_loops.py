"""numba loops of the fused kernels (kernels/cpu/fused.py), imported on first use (_numba.py):
one pass over memory where the unfused kernels make two. Arithmetic is that of the loops they
replace (_pointwise_loops.py: add_mid, then relu), in the same dtype, so results are bitwise equal."""
import numba
from numba import prange

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
