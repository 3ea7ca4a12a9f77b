"""CUDA twins of kernels/cpu/pooling_mask.py. Max pooling with its mask: the CPU's windows (start and
end per output position of each dim; a 2-D pool is a 3-D one with depth 1) copied over, one thread
per output walking its box in row-major order and keeping the first maximum; its gradient adds
atomically at the mask (windows may overlap). Unpooling: one thread per X value writes it at its
plane's offset plus its index (checked on the host first), and its gradient reads back there."""

import numpy as np
from numba import cuda

from . import runtime as rt
from ._launch import flat, grid, zeros
from .launcher import jit_kernel
from ...shapes.conv_pool import unpool_out
from ...shapes.pooling_mask import plane_offsets, windows


@jit_kernel
def _pool(x, out, mask, ds, de, hs, he, ws, we, d_in, h_in, w_in, do, ho, wo):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        c = i % wo
        b = (i // wo) % ho
        a = (i // (wo * ho)) % do
        plane = i // (wo * ho * do)
        base = plane * d_in * h_in * w_in
        if de[a] <= ds[a] or he[b] <= hs[b] or we[c] <= ws[c]:  # an empty window: Fluid's -FLT_MAX, Mask -1
            out[i] = -3.4028234663852886e38
            mask[i] = -1
            i += step
            continue
        best = x[base + (ds[a] * h_in + hs[b]) * w_in + ws[c]]
        at = (ds[a] * h_in + hs[b]) * w_in + ws[c]
        for z in range(ds[a], de[a]):
            for y in range(hs[b], he[b]):
                for v in range(ws[c], we[c]):
                    pos = (z * h_in + y) * w_in + v
                    if x[base + pos] > best:
                        best = x[base + pos]
                        at = pos
        out[i] = best
        mask[i] = at
        i += step


@jit_kernel
def _pool_grad(mask, dout, dx, plane_size, out_plane):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        if mask[i] >= 0:
            cuda.atomic.add(dx, (i // out_plane) * plane_size + mask[i], dout[i])
        i += step


def _as3(values, fill):
    return [fill] * (3 - len(values)) + list(values)


def _pool_kernel(ins, attrs):
    x = ins["X"]
    dims = list(x.shape[2:])
    wins = windows(dims, attrs)
    wins = [(np.zeros(1, np.int64), np.ones(1, np.int64))] * (3 - len(wins)) + wins
    out_dims = [len(w[0]) for w in wins]
    out = rt.empty(tuple(x.shape[:2]) + tuple(out_dims[3 - len(dims) :]), x.dtype)
    mask = rt.empty(out.shape, np.int32)
    if out.size:
        arrays = [rt.to_device(np.ascontiguousarray(a)) for w in wins for a in w]
        _pool[grid(out.size)](flat(x), flat(out), flat(mask), *arrays, *_as3(dims, 1), *out_dims)
    return {"Out": out, "Mask": mask}


def _pool_grad_kernel(ins, attrs):
    x, mask, dout = ins["X"], ins["Mask"], ins["Out@GRAD"]
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        plane, out_plane = int(np.prod(x.shape[2:])), int(np.prod(dout.shape[2:]))
        _pool_grad[grid(dout.size)](flat(mask), flat(dout), flat(dx), plane, out_plane)
    return {"X@GRAD": dx}


max_pool2d_with_index = max_pool3d_with_index = _pool_kernel
max_pool2d_with_index_grad = max_pool3d_with_index_grad = _pool_grad_kernel


@jit_kernel
def _unpool(x, at, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < x.size:
        out[at[i]] = x[i]
        i += step


@jit_kernel
def _unpool_grad(dout, at, dx):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dx.size:
        dx[i] = dout[at[i]]
        i += step


def _offsets(x, indices, size, op):
    """Each X value's flat position in Out, checked (and computed) on the host: Indices is small."""
    return rt.to_device(plane_offsets(tuple(x.shape), rt.to_host(indices), size, op))


def _unpool_kernel(op):
    def kernel(ins, attrs):
        x = ins["X"]
        out_dims = unpool_out(list(x.shape[2:]), attrs)
        out = zeros(tuple(x.shape[:2]) + tuple(out_dims), x.dtype)
        if x.size:
            _unpool[grid(x.size)](flat(x), _offsets(x, ins["Indices"], int(np.prod(out_dims)), op), flat(out))
        return {"Out": out}

    return kernel


def _unpool_grad_kernel(op):
    def kernel(ins, attrs):
        x, dout = ins["X"], ins["Out@GRAD"]
        dx = rt.empty(x.shape, x.dtype)
        if x.size:
            at = _offsets(x, ins["Indices"], int(np.prod(dout.shape[2:])), op)
            _unpool_grad[grid(x.size)](flat(dout), at, flat(dx))
        return {"X@GRAD": dx}

    return kernel


unpool, unpool3d = _unpool_kernel("unpool"), _unpool_kernel("unpool3d")
unpool_grad, unpool3d_grad = _unpool_grad_kernel("unpool"), _unpool_grad_kernel("unpool3d")
