"""Device code of batch_norm and layer_norm (kernels in normalization.py): block reductions, one block per
channel / per row, and the elementwise passes around them."""

import math

from numba import cuda

from ._launch import THREADS, per_dtype
from ._reduce import block_sum
from .launcher import jit_kernel


def channel_stats_kernel(dt):
    T = THREADS
    zero = dt(0)

    @jit_kernel
    def kernel(x, mean, var, C, inner, count):
        """Per channel (one block each): mean, then the biased variance around it (two passes)."""
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        c = cuda.blockIdx.x
        while c < C:
            s = zero
            for r in range(t, count, nt):
                s += x[((r // inner) * C + c) * inner + r % inner]
            m = block_sum(shared, s) / count
            s = zero
            for r in range(t, count, nt):
                d = x[((r // inner) * C + c) * inner + r % inner] - m
                s += d * d
            v = block_sum(shared, s) / count
            if t == 0:
                mean[c] = m
                var[c] = v
            c += cuda.gridDim.x

    return kernel


channel_stats = per_dtype(channel_stats_kernel)


@jit_kernel
def bn_coefficients(m, v, scale, bias, mean_in, var_in, eps, momentum, update, a, shift, inv_std, mean_out, var_out):
    c = cuda.grid(1)
    if c < m.size:
        s = 1.0 / math.sqrt(v[c] + eps)
        inv_std[c] = s
        a[c] = scale[c] * inv_std[c]
        shift[c] = bias[c] - m[c] * a[c]
        if update:
            mean_out[c] = mean_in[c] * momentum + m[c] * (1.0 - momentum)
            var_out[c] = var_in[c] * momentum + v[c] * (1.0 - momentum)


@jit_kernel
def per_channel_affine(x, a, shift, y, C, inner):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < y.size:
        c = (e // inner) % C
        y[e] = x[e] * a[c] + shift[c]
        e += step


def bn_grad_sums_kernel(dt):
    T = THREADS
    zero = dt(0)

    @jit_kernel
    def kernel(x, dy, saved_mean, inv_std, dbias, dscale, C, inner, count):
        """Per channel: sum(dy) and sum(dy * xhat), one block each."""
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        c = cuda.blockIdx.x
        while c < C:
            sb = zero
            ss = zero
            for r in range(t, count, nt):
                k = ((r // inner) * C + c) * inner + r % inner
                sb += dy[k]
                ss += dy[k] * ((x[k] - saved_mean[c]) * inv_std[c])
            sb = block_sum(shared, sb)
            ss = block_sum(shared, ss)
            if t == 0:
                dbias[c] = sb
                dscale[c] = ss
            c += cuda.gridDim.x

    return kernel


bn_grad_sums = per_dtype(bn_grad_sums_kernel)


@jit_kernel
def bn_dx(x, dy, saved_mean, inv_std, scale, dbias, dscale, dx, C, inner, count, use_stats):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dx.size:
        c = (e // inner) % C
        k = scale[c] * inv_std[c]
        if use_stats:
            dx[e] = dy[e] * k
        else:
            xhat = (x[e] - saved_mean[c]) * inv_std[c]
            dx[e] = (k / count) * (count * dy[e] - dbias[c] - xhat * dscale[c])
        e += step


def layer_norm_kernel(dt, has_scale, has_bias):
    T = THREADS
    zero = dt(0)

    @jit_kernel
    def kernel(x, scale, bias, y, mean, var, rows, n, eps):
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        r = cuda.blockIdx.x
        while r < rows:
            base = r * n
            s = zero
            for j in range(t, n, nt):
                s += x[base + j]
            m = block_sum(shared, s) / n
            s = zero
            for j in range(t, n, nt):
                d = x[base + j] - m
                s += d * d
            v = block_sum(shared, s) / n
            inv_std = 1.0 / math.sqrt(v + eps)
            for j in range(t, n, nt):
                out = (x[base + j] - m) * inv_std
                if has_scale:
                    out *= scale[j]
                if has_bias:
                    out += bias[j]
                y[base + j] = out
            if t == 0:
                mean[r] = m
                var[r] = v
            r += cuda.gridDim.x

    return kernel


layer_norm = per_dtype(layer_norm_kernel)


def layer_norm_dx_kernel(dt, has_scale):
    T = THREADS
    zero = dt(0)

    @jit_kernel
    def kernel(x, scale, mean, var, dy, dx, rows, n, eps):
        """dx = inv_std * (g - mean(g) - xhat * mean(g * xhat)), g = dy * scale, per row."""
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        r = cuda.blockIdx.x
        while r < rows:
            base = r * n
            inv_std = 1.0 / math.sqrt(var[r] + eps)
            sg = zero
            sgx = zero
            for j in range(t, n, nt):
                g = dy[base + j] * scale[j] if has_scale else dy[base + j]
                sg += g
                sgx += g * ((x[base + j] - mean[r]) * inv_std)
            mg = block_sum(shared, sg) / n
            mgx = block_sum(shared, sgx) / n
            for j in range(t, n, nt):
                g = dy[base + j] * scale[j] if has_scale else dy[base + j]
                xhat = (x[base + j] - mean[r]) * inv_std
                dx[base + j] = inv_std * (g - mg - xhat * mgx)
            r += cuda.gridDim.x

    return kernel


layer_norm_dx = per_dtype(layer_norm_dx_kernel)


@jit_kernel
def dy_xhat(x, mean, var, dy, out, n, eps):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        r = e // n
        out[e] = dy[e] * ((x[e] - mean[r]) * (1.0 / math.sqrt(var[r] + eps)))
        e += step
