"""CUDA twins of kernels/cpu/spatial.py: affine_grid one thread per output coordinate (its gradient
one per Theta entry); grid_sampler one thread per output pixel and channel, its X gradient added
atomically, its Grid gradient one thread per grid point summing over the channels."""
import math

import numpy as np
from numba import cuda

from ..cpu import spatial as _cpu
from . import runtime as rt
from ._launch import flat, grid, zeros


def _base(ins, attrs, dtype):
    size = {"OutputShape": rt.to_host(ins["OutputShape"])} if "OutputShape" in ins else {}
    h, w = _cpu.grid_size(size, attrs)
    return h, w, rt.to_device(np.ascontiguousarray(_cpu.base_grid(h, w, attrs["align_corners"]), dtype=dtype))


@cuda.jit
def _affine(theta, base, out, hw):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        k = i % 2
        p = (i // 2) % hw
        n = i // (2 * hw)
        t = n * 6 + k * 3
        out[i] = base[p * 3] * theta[t] + base[p * 3 + 1] * theta[t + 1] + base[p * 3 + 2] * theta[t + 2]
        i += step


@cuda.jit
def _affine_grad(dout, base, dtheta, hw):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dtheta.size:
        j = i % 3
        k = (i // 3) % 2
        n = i // 6
        acc = 0.0
        for p in range(hw):
            acc += dout[(n * hw + p) * 2 + k] * base[p * 3 + j]
        dtheta[i] = acc
        i += step


def affine_grid(ins, attrs):
    theta = ins["Theta"]
    h, w, base = _base(ins, attrs, theta.dtype)
    out = rt.empty((theta.shape[0], h, w, 2), theta.dtype)
    if out.size:
        _affine[grid(out.size)](flat(theta), flat(base), flat(out), h * w)
    return {"Output": out}


def affine_grid_grad(ins, attrs):
    theta = ins["Theta"]
    h, w, base = _base(ins, attrs, theta.dtype)
    dtheta = rt.empty(theta.shape, theta.dtype)
    if dtheta.size:
        _affine_grad[grid(dtheta.size)](flat(ins["Output@GRAD"]), flat(base), flat(dtheta), h * w)
    return {"Theta@GRAD": dtheta}


@cuda.jit(device=True, inline=True)
def _pixel(g, size, corners):
    return (g + 1) * ((size - 1) / 2) if corners else ((g + 1) * size - 1) / 2


@cuda.jit
def _sample(x, grd, out, c, h, w, oh, ow, corners):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        q = i % (oh * ow)
        ch = (i // (oh * ow)) % c
        n = i // (oh * ow * c)
        g = (n * oh * ow + q) * 2
        px, py = _pixel(grd[g], w, corners), _pixel(grd[g + 1], h, corners)
        x0, y0 = int(math.floor(px)), int(math.floor(py))
        fx, fy = px - x0, py - y0
        acc = 0.0
        for oy in range(2):
            for ox in range(2):
                yy, xx = y0 + oy, x0 + ox
                if 0 <= yy < h and 0 <= xx < w:
                    wt = (fx if ox else 1 - fx) * (fy if oy else 1 - fy)
                    acc += x[((n * c + ch) * h + yy) * w + xx] * wt
        out[i] = acc
        i += step


@cuda.jit
def _sample_grad(x, grd, dout, dx, dgrid, c, h, w, oh, ow, corners, sx, sy):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dgrid.size // 2:
        q = i % (oh * ow)
        n = i // (oh * ow)
        px, py = _pixel(grd[2 * i], w, corners), _pixel(grd[2 * i + 1], h, corners)
        x0, y0 = int(math.floor(px)), int(math.floor(py))
        fx, fy = px - x0, py - y0
        dpx = 0.0
        dpy = 0.0
        for oy in range(2):
            for ox in range(2):
                yy, xx = y0 + oy, x0 + ox
                if 0 <= yy < h and 0 <= xx < w:
                    wy = fy if oy else 1 - fy
                    wx = fx if ox else 1 - fx
                    v = 0.0
                    for ch in range(c):
                        d = dout[(n * c + ch) * oh * ow + q]
                        j = ((n * c + ch) * h + yy) * w + xx
                        v += x[j] * d
                        cuda.atomic.add(dx, j, d * wx * wy)
                    dpx += v * wy * (1 if ox else -1)
                    dpy += v * wx * (1 if oy else -1)
        dgrid[2 * i] = dpx * sx
        dgrid[2 * i + 1] = dpy * sy
        i += step


def _geometry(x, grd):
    return x.shape[1], x.shape[2], x.shape[3], grd.shape[1], grd.shape[2]


def grid_sampler(ins, attrs):
    x, grd = ins["X"], ins["Grid"]
    geo = _geometry(x, grd)
    out = rt.empty((x.shape[0], x.shape[1], grd.shape[1], grd.shape[2]), x.dtype)
    if out.size:
        _sample[grid(out.size)](flat(x), flat(grd), flat(out), *geo, bool(attrs["align_corners"]))
    return {"Output": out}


def grid_sampler_grad(ins, attrs):
    x, grd = ins["X"], ins["Grid"]
    corners = bool(attrs["align_corners"])
    geo = _geometry(x, grd)
    dx, dgrid = zeros(x.shape, x.dtype), rt.empty(grd.shape, grd.dtype)
    _, sx = _cpu.unnormalize(0, x.shape[3], corners)
    _, sy = _cpu.unnormalize(0, x.shape[2], corners)
    if dgrid.size:
        _sample_grad[grid(dgrid.size // 2)](flat(x), flat(grd), flat(ins["Output@GRAD"]), flat(dx), flat(dgrid),
                                            *geo, corners, float(sx), float(sy))
    return {"X@GRAD": dx, "Grid@GRAD": dgrid}
