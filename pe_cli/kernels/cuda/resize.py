"""CUDA twins of kernels/cpu/resize.py: the CPU's taps (two input positions and their weights per
output position along each spatial dim) copied over, one thread per output element summing its
4 (8 for trilinear) taps; the gradient adds each output's taps back atomically. X is seen as
[N, C, S] (NCHW) or [N, S, C] (NHWC) with S the flattened spatial dims."""
import numpy as np
from numba import cuda

from ..cpu import resize as _cpu
from . import runtime as rt
from ._launch import flat, grid, zeros


def _geometry(x, ins, attrs):
    shape = tuple(x.shape)
    sizes_in, sizes_out, scales = _cpu.out_size(shape, attrs, ins, rt.to_host)
    nhwc = attrs["data_layout"] == "NHWC"
    c = shape[-1] if nhwc else shape[1]
    if len(sizes_in) == 2:                     # a unit depth makes every case three-dimensional
        sizes_in, sizes_out, scales = [1] + sizes_in, [1] + sizes_out, [0.0] + scales
    taps = [_cpu.taps(n, m, attrs, sc) for n, m, sc in zip(sizes_in, sizes_out, scales)]
    d_taps = [rt.to_device(np.ascontiguousarray(np.stack([t[0], t[1]]))) for t in taps]
    d_weights = [rt.to_device(np.ascontiguousarray(np.stack([t[2], t[3]]))) for t in taps]
    spatial = tuple(sizes_out[3 - (len(shape) - 2):])
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


@cuda.jit
def _interp(x, tz, ty, tx, wz, wy, wx, out, c, d, h, w, od, oh, ow, nhwc, backward, dx):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        b, ch, p = _coords(i, c, od, oh, ow, nhwc)
        kz, ky, kx = p // (oh * ow), (p // ow) % oh, p % ow
        acc = 0.0
        for a in range(2):
            for e in range(2):
                for f in range(2):
                    wt = wz[a, kz] * wy[e, ky] * wx[f, kx]
                    j = _at(b, ch, tz[a, kz], ty[e, ky], tx[f, kx], c, d, h, w, nhwc)
                    if backward:
                        if wt != 0:
                            cuda.atomic.add(dx, j, out[i] * wt)
                    else:
                        acc += x[j] * wt
        if not backward:
            out[i] = acc
        i += step


def interp(ins, attrs):
    x = ins["X"]
    taps, weights, geo, shape = _geometry(x, ins, attrs)
    out = rt.empty(shape, x.dtype)
    if out.size:
        _interp[grid(out.size)](flat(x), *taps, *weights, flat(out), *geo, False, flat(out))
    return {"Out": out}


def interp_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    taps, weights, geo, _ = _geometry(x, ins, attrs)
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _interp[grid(dout.size)](flat(x), *taps, *weights, flat(dout), *geo, True, flat(dx))
    return {"X@GRAD": dx}
