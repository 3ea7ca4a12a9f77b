"""CUDA twin of kernels/cpu/_adaptive_pool.py: one thread per output pixel; the gradient adds into
X atomically (adaptive windows may overlap)."""

from numba import cuda

from . import runtime as rt
from ._launch import flat, grid, zeros
from .launcher import jit_kernel


@cuda.jit(device=True, inline=True)
def _span(i, n, k):
    return (i * n) // k, -((-(i + 1) * n) // k)


@jit_kernel
def _pool(x, out, h, w, oh, ow, is_max):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        q = i % ow
        p = (i // ow) % oh
        base = (i // (ow * oh)) * h * w
        hs, he = _span(p, h, oh)
        ws, we = _span(q, w, ow)
        acc = x[base + hs * w + ws]
        if not is_max:
            acc = 0 * acc
        for r in range(hs, he):
            for s in range(ws, we):
                v = x[base + r * w + s]
                if is_max:
                    if v > acc:
                        acc = v
                else:
                    acc += v
        out[i] = acc if is_max else acc / ((he - hs) * (we - ws))
        i += step


@jit_kernel
def _pool_grad(x, dout, dx, h, w, oh, ow, is_max):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        q = i % ow
        p = (i // ow) % oh
        base = (i // (ow * oh)) * h * w
        hs, he = _span(p, h, oh)
        ws, we = _span(q, w, ow)
        if is_max:
            at = base + hs * w + ws
            best = x[at]
            for r in range(hs, he):
                for s in range(ws, we):
                    if x[base + r * w + s] > best:
                        best = x[base + r * w + s]
                        at = base + r * w + s
            cuda.atomic.add(dx, at, dout[i])
        else:
            share = dout[i] / ((he - hs) * (we - ws))
            for r in range(hs, he):
                for s in range(ws, we):
                    cuda.atomic.add(dx, base + r * w + s, share)
        i += step


def pool2d(ins, attrs):
    x = ins["X"]
    oh, ow = attrs["ksize"]
    out = rt.empty((x.shape[0], x.shape[1], oh, ow), x.dtype)
    if out.size:
        _pool[grid(out.size)](flat(x), flat(out), x.shape[2], x.shape[3], oh, ow, attrs["pooling_type"] == "max")
    return {"Out": out}


def pool2d_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    oh, ow = attrs["ksize"]
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _pool_grad[grid(dout.size)](
            flat(x), flat(dout), flat(dx), x.shape[2], x.shape[3], oh, ow, attrs["pooling_type"] == "max"
        )
    return {"X@GRAD": dx}
