"""CUDA twin of kernels/cpu/detection_roi.py: one thread per output element, computed by the element
functions the CPU loops use (cpu/_roi_elems.py, compiled here as device functions); the gradients
add into dX atomically (bins and samples overlap). Which image each roi pools from is worked out on
the host (from the LoD or the small RoisNum / BatchRoINums input) and copied over."""
import numba
from numba import cuda

from ..cpu._roi_elems import make
from ..cpu.detection_roi import roi_images
from . import runtime as rt
from ._launch import flat, grid, zeros


@cuda.jit(device=True, inline=True)
def _atomic_add(a, i, v):
    cuda.atomic.add(a, i, v)


_E = make(cuda.jit(device=True), _atomic_add, numba.float32)
_roi_pool_at, _roi_align_at, _roi_align_back = _E["roi_pool_at"], _E["roi_align_at"], _E["roi_align_back"]
_psroi_at, _psroi_back, _prroi_at, _prroi_back = _E["psroi_at"], _E["psroi_back"], _E["prroi_at"], _E["prroi_back"]


@cuda.jit
def _roi_pool(x, rois, bid, c, h, w, ph, pw, scale, out, argmax):
    i = cuda.grid(1)
    while i < out.size:
        out[i], argmax[i] = _roi_pool_at(x, rois, bid, i, c, h, w, ph, pw, scale)
        i += cuda.gridsize(1)


@cuda.jit
def _roi_pool_grad(dout, argmax, bid, c, ph, pw, plane, dx):
    i = cuda.grid(1)
    while i < dout.size:
        if argmax[i] >= 0:
            r = i // (c * ph * pw)
            ch = (i // (ph * pw)) % c
            cuda.atomic.add(dx, (bid[r] * c + ch) * plane + argmax[i], dout[i])
        i += cuda.gridsize(1)


@cuda.jit
def _roi_align(x, rois, bid, c, h, w, ph, pw, scale, ratio, out):
    i = cuda.grid(1)
    while i < out.size:
        out[i] = _roi_align_at(x, rois, bid, i, c, h, w, ph, pw, scale, ratio)
        i += cuda.gridsize(1)


@cuda.jit
def _roi_align_grad(dout, rois, bid, c, h, w, ph, pw, scale, ratio, dx):
    i = cuda.grid(1)
    while i < dout.size:
        _roi_align_back(dout[i], rois, bid, i, c, h, w, ph, pw, scale, ratio, dx)
        i += cuda.gridsize(1)


@cuda.jit
def _psroi(x, rois, bid, oc, c, h, w, ph, pw, scale, out):
    i = cuda.grid(1)
    while i < out.size:
        out[i] = _psroi_at(x, rois, bid, i, oc, c, h, w, ph, pw, scale)
        i += cuda.gridsize(1)


@cuda.jit
def _psroi_grad(dout, rois, bid, oc, c, h, w, ph, pw, scale, dx):
    i = cuda.grid(1)
    while i < dout.size:
        _psroi_back(dout[i], rois, bid, i, oc, c, h, w, ph, pw, scale, dx)
        i += cuda.gridsize(1)


@cuda.jit
def _prroi(x, rois, bid, c, h, w, ph, pw, scale, out):
    i = cuda.grid(1)
    while i < out.size:
        out[i] = _prroi_at(x, rois, bid, i, c, h, w, ph, pw, scale)
        i += cuda.gridsize(1)


@cuda.jit
def _prroi_grad(dout, rois, bid, c, h, w, ph, pw, scale, dx):
    i = cuda.grid(1)
    while i < dout.size:
        _prroi_back(dout[i], rois, bid, i, c, h, w, ph, pw, scale, dx)
        i += cuda.gridsize(1)


def _setup(op, ins, attrs, counts_slot="RoisNum"):
    x, rois = ins["X"], ins["ROIs"]
    counts = rt.to_host(ins[counts_slot]) if counts_slot in ins else None
    bid = rt.to_device(roi_images(op, rois.size // 4, x.shape[0], attrs, counts))
    c, h, w = x.shape[1], x.shape[2], x.shape[3]
    return x, flat(rois), bid, (c, h, w, attrs["pooled_height"], attrs["pooled_width"])


def _scale(attrs):
    return float(attrs["spatial_scale"])


def roi_pool(ins, attrs):
    x, rois, bid, (c, h, w, ph, pw) = _setup("roi_pool", ins, attrs)
    out = rt.empty((bid.size, c, ph, pw), x.dtype)
    argmax = rt.empty(out.shape, "int64")
    if out.size:
        _roi_pool[grid(out.size)](flat(x), rois, bid, c, h, w, ph, pw, _scale(attrs), flat(out), flat(argmax))
    return {"Out": out, "Argmax": argmax}


def roi_pool_grad(ins, attrs):
    x, _, bid, (c, h, w, ph, pw) = _setup("roi_pool", ins, attrs)
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _roi_pool_grad[grid(dout.size)](flat(dout), flat(ins["Argmax"]), bid, c, ph, pw, h * w, flat(dx))
    return {"X@GRAD": dx}


def roi_align(ins, attrs):
    x, rois, bid, (c, h, w, ph, pw) = _setup("roi_align", ins, attrs)
    out = rt.empty((bid.size, c, ph, pw), x.dtype)
    if out.size:
        _roi_align[grid(out.size)](flat(x), rois, bid, c, h, w, ph, pw, _scale(attrs), int(attrs["sampling_ratio"]),
                                   flat(out))
    return {"Out": out}


def roi_align_grad(ins, attrs):
    x, rois, bid, (c, h, w, ph, pw) = _setup("roi_align", ins, attrs)
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _roi_align_grad[grid(dout.size)](flat(dout), rois, bid, c, h, w, ph, pw, _scale(attrs),
                                         int(attrs["sampling_ratio"]), flat(dx))
    return {"X@GRAD": dx}


def psroi_pool(ins, attrs):
    x, rois, bid, (c, h, w, ph, pw) = _setup("psroi_pool", ins, attrs)
    oc = attrs["output_channels"]
    out = rt.empty((bid.size, oc, ph, pw), x.dtype)
    if out.size:
        _psroi[grid(out.size)](flat(x), rois, bid, oc, c, h, w, ph, pw, _scale(attrs), flat(out))
    return {"Out": out}


def psroi_pool_grad(ins, attrs):
    x, rois, bid, (c, h, w, ph, pw) = _setup("psroi_pool", ins, attrs)
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _psroi_grad[grid(dout.size)](flat(dout), rois, bid, attrs["output_channels"], c, h, w, ph, pw, _scale(attrs),
                                     flat(dx))
    return {"X@GRAD": dx}


def prroi_pool(ins, attrs):
    x, rois, bid, (c, h, w, ph, pw) = _setup("prroi_pool", ins, attrs, "BatchRoINums")
    out = rt.empty((bid.size, c, ph, pw), x.dtype)
    if out.size:
        _prroi[grid(out.size)](flat(x), rois, bid, c, h, w, ph, pw, _scale(attrs), flat(out))
    return {"Out": out}


def prroi_pool_grad(ins, attrs):
    x, rois, bid, (c, h, w, ph, pw) = _setup("prroi_pool", ins, attrs, "BatchRoINums")
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _prroi_grad[grid(dout.size)](flat(dout), rois, bid, c, h, w, ph, pw, _scale(attrs), flat(dx))
    return {"X@GRAD": dx}
