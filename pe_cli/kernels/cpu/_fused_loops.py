"""numba loops of the fused ops (kernels/cpu/fused.py): one pass over memory where the unfused ops
take two. Each computes exactly what its two ops compute, in the same order, so results are bitwise
the same. Imported on first use."""
import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)


@_jit
def add_mid_relu(x, y, out):
    """out[p, j, q] = relu(x[p, j, q] + y[j]) (elementwise_add's bias loop, then relu's)."""
    pre, n, post = x.shape
    zero = x.dtype.type(0)
    for p in range(pre):
        for j in range(n):
            b = y[j]
            for q in range(post):
                v = x[p, j, q] + b
                out[p, j, q] = v if (v > zero or v != v) else zero


@_jit
def relu_grad_sum_rows(out, dout, dx, dy):
    """dx = dout * (out > 0) (relu_grad) and dy[j] = the sum over p of dx[p, j] (elementwise_add's
    bias gradient over rows, accumulated in float64 in the same order)."""
    pre, n = dout.shape
    zero = dout.dtype.type(0)
    acc = np.zeros(n, dtype=np.float64)
    for p in range(pre):
        for j in range(n):
            g = dout[p, j]
            d = g if out[p, j] > 0 else g * zero
            dx[p, j] = d
            acc[j] += d
    for j in range(n):
        dy[j] = acc[j]


@numba.njit(cache=True, nogil=True, parallel=True)
def add_mid_relu_parallel(x, y, out):
    """add_mid_relu with the rows p spread over numba's threads (x [pre, n, post], pre > 1)."""
    pre, n, post = x.shape
    zero = x.dtype.type(0)
    for p in numba.prange(pre):
        for j in range(n):
            b = y[j]
            for q in range(post):
                v = x[p, j, q] + b
                out[p, j, q] = v if (v > zero or v != v) else zero
