"""CUDA twins of kernels/cpu/resize.py: the CPU's per-row and per-column taps (two input positions
and their weights) copied over, one thread per output element; the gradient adds each output's
four contributions atomically."""
from numba import cuda

from ..cpu import resize as _cpu
from . import runtime as rt
from ._launch import flat, grid, zeros


def _geometry(x, ins, attrs):
    size = rt.to_host(ins["OutSize"]) if "OutSize" in ins else None
    in_h, in_w, out_h, out_w = _cpu.out_size(tuple(x.shape), attrs, size)
    rows = [rt.to_device(a) for a in _cpu.taps(in_h, out_h, attrs)]
    cols = [rt.to_device(a) for a in _cpu.taps(in_w, out_w, attrs)]
    nhwc = attrs["data_layout"] == "NHWC"
    n, c = x.shape[0], x.shape[3] if nhwc else x.shape[1]
    out = (n, out_h, out_w, c) if nhwc else (n, c, out_h, out_w)
    return rows, cols, (c, in_h, in_w, out_h, out_w, nhwc), out


@cuda.jit(device=True, inline=True)
def _coords(i, c, oh, ow, nhwc):
    if nhwc:
        return i // (c * ow * oh), i % c, (i // (c * ow)) % oh, (i // c) % ow
    return i // (ow * oh * c), (i // (ow * oh)) % c, (i // ow) % oh, i % ow


@cuda.jit(device=True, inline=True)
def _at(b, ch, y, x, c, h, w, nhwc):
    if nhwc:
        return ((b * h + y) * w + x) * c + ch
    return ((b * c + ch) * h + y) * w + x


@cuda.jit
def _interp(x, rlo, rhi, rwl, rwh, clo, chi, cwl, cwh, out, c, h, w, oh, ow, nhwc):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        b, ch, k, l = _coords(i, c, oh, ow, nhwc)
        out[i] = (x[_at(b, ch, rlo[k], clo[l], c, h, w, nhwc)] * rwl[k] * cwl[l]
                  + x[_at(b, ch, rhi[k], clo[l], c, h, w, nhwc)] * rwh[k] * cwl[l]
                  + x[_at(b, ch, rlo[k], chi[l], c, h, w, nhwc)] * rwl[k] * cwh[l]
                  + x[_at(b, ch, rhi[k], chi[l], c, h, w, nhwc)] * rwh[k] * cwh[l])
        i += step


@cuda.jit
def _interp_grad(dout, rlo, rhi, rwl, rwh, clo, chi, cwl, cwh, dx, c, h, w, oh, ow, nhwc):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        b, ch, k, l = _coords(i, c, oh, ow, nhwc)
        d = dout[i]
        cuda.atomic.add(dx, _at(b, ch, rlo[k], clo[l], c, h, w, nhwc), d * rwl[k] * cwl[l])
        cuda.atomic.add(dx, _at(b, ch, rhi[k], clo[l], c, h, w, nhwc), d * rwh[k] * cwl[l])
        cuda.atomic.add(dx, _at(b, ch, rlo[k], chi[l], c, h, w, nhwc), d * rwl[k] * cwh[l])
        cuda.atomic.add(dx, _at(b, ch, rhi[k], chi[l], c, h, w, nhwc), d * rwh[k] * cwh[l])
        i += step


def interp(ins, attrs):
    x = ins["X"]
    rows, cols, geo, shape = _geometry(x, ins, attrs)
    out = rt.empty(shape, x.dtype)
    if out.size:
        _interp[grid(out.size)](flat(x), *rows, *cols, flat(out), *geo)
    return {"Out": out}


def interp_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    rows, cols, geo, _ = _geometry(x, ins, attrs)
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _interp_grad[grid(dout.size)](flat(dout), *rows, *cols, flat(dx), *geo)
    return {"X@GRAD": dx}
