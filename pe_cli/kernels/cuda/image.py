"""CUDA twins of kernels/cpu/image.py: the permutation ops are one strided copy each; similarity_focus
runs the CPU kernel on the host.

Resizing: the taps of shapes/image.py (two input positions and their weights per output position along each
spatial dim) copied over, one thread per output element summing its 4 (8 for trilinear) taps; the
gradient adds each output's taps back atomically. X is seen as [N, C, S] (NCHW) or [N, S, C] (NHWC)
with S the flattened spatial dims.

affine_grid: one thread per output coordinate (its gradient one per Theta entry); grid_sampler one
thread per output pixel and channel, its X gradient added atomically, its Grid gradient one thread
per grid point summing over the channels."""

import math

import numpy as np
from numba import cuda

from . import runtime as rt
from ._host import given_cpu_kernel, host_ops, on_host_when
from ._launch import flat, grid, zeros
from ._matmul import matmul
from ._strided import contiguous_strides, copy_window
from .launcher import jit_kernel
from ...shapes.image import base_grid, grid_size, out_size, permutation, taps as resize_taps, unnormalize


def _forward(op):
    def kernel(ins, attrs):
        x = ins["X"]
        seen, perm, shape = permutation(op, tuple(x.shape), attrs)
        sstr = contiguous_strides(seen)
        dims = tuple(seen[p] for p in perm)
        out = rt.empty(shape, x.dtype)
        copy_window(x, out, dims, [sstr[p] for p in perm], contiguous_strides(dims))
        return {"Out": out}

    kernel.__name__ = op
    return kernel


def _backward(op):
    def kernel(ins, attrs):
        x, dout = ins["X"], ins["Out@GRAD"]
        seen, perm, _ = permutation(op, tuple(x.shape), attrs)
        sstr = contiguous_strides(seen)
        dims = tuple(seen[p] for p in perm)
        dx = rt.empty(x.shape, x.dtype)
        copy_window(dout, dx, dims, contiguous_strides(dims), [sstr[p] for p in perm])
        return {"X@GRAD": dx}

    kernel.__name__ = op + "_grad"
    return kernel


pixel_shuffle, pixel_shuffle_grad = _forward("pixel_shuffle"), _backward("pixel_shuffle")
space_to_depth, space_to_depth_grad = _forward("space_to_depth"), _backward("space_to_depth")
shuffle_channel, shuffle_channel_grad = _forward("shuffle_channel"), _backward("shuffle_channel")


def similarity_focus(ins, attrs, cpu_similarity_focus):
    """A sort and a greedy pass per slice: on the host (the CPU kernel), the mask copied over."""
    return {"Out": rt.to_device(cpu_similarity_focus({"X": rt.to_host(ins["X"])}, attrs)["Out"])}


# -- resize -----------------------------------------------------------------------------------------


def _geometry(x, ins, attrs):
    shape = tuple(x.shape)
    sizes_in, sizes_out, scales = out_size(shape, attrs, ins, rt.to_host)
    nhwc = attrs["data_layout"] != "NCHW"
    c = shape[-1] if nhwc else shape[1]
    if len(sizes_in) == 2:  # a unit depth makes every case three-dimensional
        sizes_in, sizes_out, scales = [1] + sizes_in, [1] + sizes_out, [0.0] + scales
    taps = [resize_taps(n, m, attrs, sc) for n, m, sc in zip(sizes_in, sizes_out, scales)]
    d_taps = [rt.to_device(np.ascontiguousarray(np.stack([t[0], t[1]]))) for t in taps]
    d_weights = [rt.to_device(np.ascontiguousarray(np.stack([t[2], t[3]]))) for t in taps]
    spatial = tuple(sizes_out[3 - (len(shape) - 2) :])
    out = (shape[0],) + (spatial + (c,) if nhwc else (c,) + spatial)
    return d_taps, d_weights, (c, *sizes_in, *sizes_out, nhwc), out


@cuda.jit(device=True, inline=True)
def _coords(i, c, od, oh, ow, nhwc):
    """(batch, channel, flat output position over od * oh * ow) of output element i."""
    s = od * oh * ow
    if nhwc:
        return i // (c * s), i % c, (i // c) % s
    return i // (c * s), (i // s) % c, i % s


@cuda.jit(device=True, inline=True)
def _at(b, ch, z, y, x, c, d, h, w, nhwc):
    if nhwc:
        return (((b * d + z) * h + y) * w + x) * c + ch
    return (((b * c + ch) * d + z) * h + y) * w + x


@cuda.jit(device=True, inline=True)
def _tap(i, a, e, f, tz, ty, tx, wz, wy, wx, c, d, h, w, od, oh, ow, nhwc):
    """(input element, weight) of tap (a, e, f) of output element i."""
    b, ch, p = _coords(i, c, od, oh, ow, nhwc)
    kz, ky, kx = p // (oh * ow), (p // ow) % oh, p % ow
    return (_at(b, ch, tz[a, kz], ty[e, ky], tx[f, kx], c, d, h, w, nhwc), wz[a, kz] * wy[e, ky] * wx[f, kx])


@jit_kernel
def _interp(x, tz, ty, tx, wz, wy, wx, out, c, d, h, w, od, oh, ow, nhwc):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        acc = 0.0
        for a in range(2):
            for e in range(2):
                for f in range(2):
                    j, wt = _tap(i, a, e, f, tz, ty, tx, wz, wy, wx, c, d, h, w, od, oh, ow, nhwc)
                    acc += x[j] * wt
        out[i] = acc
        i += step


@jit_kernel
def _interp_back(dout, tz, ty, tx, wz, wy, wx, dx, c, d, h, w, od, oh, ow, nhwc):
    """A kernel of its own: the atomic add exists for float types only, and an integer image
    (uint8) resizes forward but has no gradient."""
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        for a in range(2):
            for e in range(2):
                for f in range(2):
                    j, wt = _tap(i, a, e, f, tz, ty, tx, wz, wy, wx, c, d, h, w, od, oh, ow, nhwc)
                    if wt != 0:
                        cuda.atomic.add(dx, j, dout[i] * wt)
        i += step


def _bicubic(attrs):
    """Bicubic's four taps per dim: the CPU's kernels (its matrices), on the host."""
    return attrs["interp_method"] == "bicubic"


def interp(ins, attrs):
    x = ins["X"]
    taps, weights, geo, shape = _geometry(x, ins, attrs)
    out = rt.empty(shape, x.dtype)
    if out.size:
        _interp[grid(out.size)](flat(x), *taps, *weights, flat(out), *geo)
    return {"Out": out}


def interp_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    taps, weights, geo, _ = _geometry(x, ins, attrs)
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _interp_back[grid(dout.size)](flat(dout), *taps, *weights, flat(dx), *geo)
    return {"X@GRAD": dx}


# -- affine_grid, grid_sampler -----------------------------------------------------------------------


def _base(ins, attrs, dtype):
    size = {"OutputShape": rt.to_host(ins["OutputShape"])} if "OutputShape" in ins else {}
    h, w = grid_size(size, attrs)
    return h, w, rt.to_device(np.ascontiguousarray(base_grid(h, w, attrs["align_corners"]), dtype=dtype))


@jit_kernel
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


@jit_kernel
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


@jit_kernel
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


@jit_kernel
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


def _grid_geometry(x, grd):
    return x.shape[1], x.shape[2], x.shape[3], grd.shape[1], grd.shape[2]


def grid_sampler(ins, attrs):
    x, grd = ins["X"], ins["Grid"]
    geo = _grid_geometry(x, grd)
    out = rt.empty((x.shape[0], x.shape[1], grd.shape[1], grd.shape[2]), x.dtype)
    if out.size:
        _sample[grid(out.size)](flat(x), flat(grd), flat(out), *geo, bool(attrs["align_corners"]))
    return {"Output": out}


def grid_sampler_grad(ins, attrs):
    x, grd = ins["X"], ins["Grid"]
    corners = bool(attrs["align_corners"])
    geo = _grid_geometry(x, grd)
    dx, dgrid = zeros(x.shape, x.dtype), rt.empty(grd.shape, grd.dtype)
    _, sx = unnormalize(0, x.shape[3], corners)
    _, sy = unnormalize(0, x.shape[2], corners)
    if dgrid.size:
        _sample_grad[grid(dgrid.size // 2)](
            flat(x), flat(grd), flat(ins["Output@GRAD"]), flat(dx), flat(dgrid), *geo, corners, float(sx), float(sy)
        )
    return {"X@GRAD": dx, "Grid@GRAD": dgrid}


# -- fsp: batched products by the tiled matmul ----------------------------------------------------------


def fsp(ins, attrs):
    x, y = ins["X"], ins["Y"]
    n, hw = x.shape[0], x.shape[2] * x.shape[3]
    return {"Out": matmul(x.reshape(n, x.shape[1], hw), y.reshape(n, y.shape[1], hw), trans_b=True, alpha=1.0 / hw)}


def fsp_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    n, hw = x.shape[0], x.shape[2] * x.shape[3]
    dx = matmul(dout, y.reshape(n, y.shape[1], hw), alpha=1.0 / hw)
    dy = matmul(dout, x.reshape(n, x.shape[1], hw), trans_a=True, alpha=1.0 / hw)
    return {"X@GRAD": dx.reshape(x.shape), "Y@GRAD": dy.reshape(y.shape)}


def _not_bilinear_zeros(attrs):
    """grid_sampler's nearest mode and border / reflection padding: the CPU's kernels, on the host."""
    return attrs["mode"] != "bilinear" or attrs["padding_mode"] != "zeros"


HOST_OPS = {
    "grid_sampler": on_host_when(_not_bilinear_zeros, grid_sampler),
    "grid_sampler_grad": on_host_when(_not_bilinear_zeros, grid_sampler_grad),
    "interp": on_host_when(_bicubic, interp),
    "interp_grad": on_host_when(_bicubic, interp_grad),
    **host_ops("unfold", "unfold_grad"),  # im2col on the host: a copy per kernel tap
    "similarity_focus": given_cpu_kernel(similarity_focus),
}
