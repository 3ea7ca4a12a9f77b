"""CUDA twin of kernels/cpu/detection_roi.py: one thread per output element, computed by the element
functions the CPU loops use (elements/roi.py, elements/deform_roi.py, elements/perspective.py, compiled
here as device functions); the gradients add into dX (and dTrans) atomically (bins and samples
overlap). Which image each roi pools from is worked out on the host (from the LoD or the small
RoisNum / BatchRoINums input) and copied over, as are roi_perspective_transform's matrices (R x 9,
numpy)."""

import numba
import numpy as np
from numba import cuda

from ..elements.deform_roi import make as _make_deform
from ..elements.perspective import make as _make_persp, matrices
from ..elements.roi import make
from . import runtime as rt
from ._launch import flat, grid, zeros
from .launcher import jit_kernel
from ...shapes.detection import psroi_sizes, roi_counts, roi_images


@cuda.jit(device=True, inline=True)
def _atomic_add(a, i, v):
    cuda.atomic.add(a, i, v)


_E = make(cuda.jit(device=True), _atomic_add, numba.float32)
_roi_pool_at, _roi_align_at, _roi_align_back = _E["roi_pool_at"], _E["roi_align_at"], _E["roi_align_back"]
_psroi_at, _psroi_back, _prroi_at, _prroi_back = _E["psroi_at"], _E["psroi_back"], _E["prroi_at"], _E["prroi_back"]


@jit_kernel
def _roi_pool(x, rois, bid, c, h, w, ph, pw, scale, out, argmax):
    i = cuda.grid(1)
    while i < out.size:
        out[i], argmax[i] = _roi_pool_at(x, rois, bid, i, c, h, w, ph, pw, scale)
        i += cuda.gridsize(1)


@jit_kernel
def _roi_pool_grad(dout, argmax, bid, c, ph, pw, plane, dx):
    i = cuda.grid(1)
    while i < dout.size:
        if argmax[i] >= 0:
            r = i // (c * ph * pw)
            ch = (i // (ph * pw)) % c
            cuda.atomic.add(dx, (bid[r] * c + ch) * plane + argmax[i], dout[i])
        i += cuda.gridsize(1)


@jit_kernel
def _roi_align(x, rois, bid, c, h, w, ph, pw, scale, ratio, aligned, out):
    i = cuda.grid(1)
    while i < out.size:
        out[i] = _roi_align_at(x, rois, bid, i, c, h, w, ph, pw, scale, ratio, aligned)
        i += cuda.gridsize(1)


@jit_kernel
def _roi_align_grad(dout, rois, bid, c, h, w, ph, pw, scale, ratio, aligned, dx):
    i = cuda.grid(1)
    while i < dout.size:
        _roi_align_back(dout[i], rois, bid, i, c, h, w, ph, pw, scale, ratio, aligned, dx)
        i += cuda.gridsize(1)


@jit_kernel
def _psroi(x, rois, bid, oc, c, h, w, ph, pw, scale, out):
    i = cuda.grid(1)
    while i < out.size:
        out[i] = _psroi_at(x, rois, bid, i, oc, c, h, w, ph, pw, scale)
        i += cuda.gridsize(1)


@jit_kernel
def _psroi_grad(dout, rois, bid, oc, c, h, w, ph, pw, scale, dx):
    i = cuda.grid(1)
    while i < dout.size:
        _psroi_back(dout[i], rois, bid, i, oc, c, h, w, ph, pw, scale, dx)
        i += cuda.gridsize(1)


@jit_kernel
def _prroi(x, rois, bid, c, h, w, ph, pw, scale, out):
    i = cuda.grid(1)
    while i < out.size:
        out[i] = _prroi_at(x, rois, bid, i, c, h, w, ph, pw, scale)
        i += cuda.gridsize(1)


@jit_kernel
def _prroi_grad(dout, rois, bid, c, h, w, ph, pw, scale, dx):
    i = cuda.grid(1)
    while i < dout.size:
        _prroi_back(dout[i], rois, bid, i, c, h, w, ph, pw, scale, dx)
        i += cuda.gridsize(1)


def _setup(op, ins, attrs, ctx, counts_slot="RoisNum"):
    x, rois = ins["X"], ins["ROIs"]
    bid = rt.to_device(roi_images(op, rois.size // 4, x.shape[0], ctx, roi_counts(ins, counts_slot, rt.to_host)))
    c, h, w = x.shape[1], x.shape[2], x.shape[3]
    return x, flat(rois), bid, (c, h, w, attrs["pooled_height"], attrs["pooled_width"])


def _scale(attrs):
    return float(attrs["spatial_scale"])


def roi_pool(ins, attrs, ctx):
    x, rois, bid, (c, h, w, ph, pw) = _setup("roi_pool", ins, attrs, ctx)
    out = rt.empty((bid.size, c, ph, pw), x.dtype)
    argmax = rt.empty(out.shape, "int64")
    if out.size:
        _roi_pool[grid(out.size)](flat(x), rois, bid, c, h, w, ph, pw, _scale(attrs), flat(out), flat(argmax))
    return {"Out": out, "Argmax": argmax}


def roi_pool_grad(ins, attrs, ctx):
    x, _, bid, (c, h, w, ph, pw) = _setup("roi_pool", ins, attrs, ctx)
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _roi_pool_grad[grid(dout.size)](flat(dout), flat(ins["Argmax"]), bid, c, ph, pw, h * w, flat(dx))
    return {"X@GRAD": dx}


def _aligned(attrs):
    return bool(attrs.get("aligned", False))  # (Paddle 2.x's; Fluid 1.8's ops have none)


def roi_align(ins, attrs, ctx):
    x, rois, bid, (c, h, w, ph, pw) = _setup("roi_align", ins, attrs, ctx)
    out = rt.empty((bid.size, c, ph, pw), x.dtype)
    if out.size:
        _roi_align[grid(out.size)](
            flat(x), rois, bid, c, h, w, ph, pw, _scale(attrs), int(attrs["sampling_ratio"]), _aligned(attrs), flat(out)
        )
    return {"Out": out}


def roi_align_grad(ins, attrs, ctx):
    x, rois, bid, (c, h, w, ph, pw) = _setup("roi_align", ins, attrs, ctx)
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _roi_align_grad[grid(dout.size)](
            flat(dout),
            rois,
            bid,
            c,
            h,
            w,
            ph,
            pw,
            _scale(attrs),
            int(attrs["sampling_ratio"]),
            _aligned(attrs),
            flat(dx),
        )
    return {"X@GRAD": dx}


def psroi_pool(ins, attrs, ctx):
    x, rois, bid, (c, h, w, ph, pw) = _setup("psroi_pool", ins, attrs, ctx)
    oc = attrs["output_channels"]
    out = rt.empty((bid.size, oc, ph, pw), x.dtype)
    if out.size:
        _psroi[grid(out.size)](flat(x), rois, bid, oc, c, h, w, ph, pw, _scale(attrs), flat(out))
    return {"Out": out}


def psroi_pool_grad(ins, attrs, ctx):
    x, rois, bid, (c, h, w, ph, pw) = _setup("psroi_pool", ins, attrs, ctx)
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _psroi_grad[grid(dout.size)](
            flat(dout), rois, bid, attrs["output_channels"], c, h, w, ph, pw, _scale(attrs), flat(dx)
        )
    return {"X@GRAD": dx}


def prroi_pool(ins, attrs, ctx):
    x, rois, bid, (c, h, w, ph, pw) = _setup("prroi_pool", ins, attrs, ctx, "BatchRoINums")
    out = rt.empty((bid.size, c, ph, pw), x.dtype)
    if out.size:
        _prroi[grid(out.size)](flat(x), rois, bid, c, h, w, ph, pw, _scale(attrs), flat(out))
    return {"Out": out}


def prroi_pool_grad(ins, attrs, ctx):
    x, rois, bid, (c, h, w, ph, pw) = _setup("prroi_pool", ins, attrs, ctx, "BatchRoINums")
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _prroi_grad[grid(dout.size)](flat(dout), rois, bid, c, h, w, ph, pw, _scale(attrs), flat(dx))
    return {"X@GRAD": dx}


_DEFORM_E = _make_deform(cuda.jit(device=True), _atomic_add)
_deform_at, _deform_back = _DEFORM_E["at"], _DEFORM_E["back"]


@jit_kernel
def _deform_forward(x, rois, trans, bid, g, scale, tstd, out, count):
    i = cuda.grid(1)
    while i < out.size:
        out[i], count[i] = _deform_at(x, rois, trans, bid, i, g, scale, tstd)
        i += cuda.gridsize(1)


@jit_kernel
def _deform_backward(dout, x, rois, trans, bid, g, scale, tstd, dx, dtrans):
    i = cuda.grid(1)
    while i < dout.size:
        _deform_back(dout[i], x, rois, trans, bid, i, g, scale, tstd, dx, dtrans)
        i += cuda.gridsize(1)


def _deform_setup(ins, attrs, ctx):
    x, rois = ins["Input"], ins["ROIs"]
    trans = ins.get("Trans")
    g = rt.to_device(psroi_sizes(x.shape, None if trans is None else trans.shape, attrs))
    trans = zeros((1,), x.dtype) if trans is None else flat(trans)
    bid = rt.to_device(roi_images("deformable_psroi_pooling", rois.size // 4, x.shape[0], ctx))
    return x, flat(rois), trans, bid, g, float(attrs["spatial_scale"]), float(attrs["trans_std"])


def deformable_psroi_pooling(ins, attrs, ctx):
    x, rois, trans, bid, g, scale, tstd = _deform_setup(ins, attrs, ctx)
    out = rt.empty((bid.size, attrs["output_dim"], attrs["pooled_height"], attrs["pooled_width"]), x.dtype)
    count = rt.empty(out.shape, x.dtype)
    if out.size:
        _deform_forward[grid(out.size)](flat(x), rois, trans, bid, g, scale, tstd, flat(out), flat(count))
    return {"Output": out, "TopCount": count}


def deformable_psroi_pooling_grad(ins, attrs, ctx):
    x, rois, trans, bid, g, scale, tstd = _deform_setup(ins, attrs, ctx)
    dx = zeros(x.shape, x.dtype)
    dtrans = zeros((trans.size,), x.dtype)
    dout = ins["Output@GRAD"]
    if dout.size:
        _deform_backward[grid(dout.size)](flat(dout), flat(x), rois, trans, bid, g, scale, tstd, flat(dx), dtrans)
    outs = {"Input@GRAD": dx}
    if "Trans" in ins:
        outs["Trans@GRAD"] = dtrans.reshape(ins["Trans"].shape)
    return outs


_PERSP_E = _make_persp(cuda.jit(device=True), _atomic_add)
_persp_at, _persp_back = _PERSP_E["at"], _PERSP_E["back"]


@jit_kernel
def _persp_forward(x, rois, m, bid, c, h, w, th, tw, scale, out, mask):
    o = cuda.grid(1)
    while o < out.size:
        out[o], ok = _persp_at(x, rois, m, bid, o, c, h, w, th, tw, scale)
        if o % (th * tw * c) < th * tw:
            mask[(o // (th * tw * c)) * th * tw + o % (th * tw)] = ok
        o += cuda.gridsize(1)


@jit_kernel
def _persp_backward(dout, rois, m, bid, c, h, w, th, tw, scale, dx):
    o = cuda.grid(1)
    while o < dout.size:
        _persp_back(dout[o], rois, m, bid, o, c, h, w, th, tw, scale, dx)
        o += cuda.gridsize(1)


def _persp_setup(ins, attrs, ctx):
    x = ins["X"]
    rois = rt.to_host(ins["ROIs"]).astype(np.float64).reshape(-1, 8)
    th, tw = attrs["transformed_height"], attrs["transformed_width"]
    m = matrices(rois, th, tw, float(attrs["spatial_scale"]))
    bid = roi_images("roi_perspective_transform", rois.shape[0], x.shape[0], ctx)
    return x, rt.to_device(rois.reshape(-1)), m, rt.to_device(bid), th, tw


def roi_perspective_transform(ins, attrs, ctx):
    x, rois, m, bid, th, tw = _persp_setup(ins, attrs, ctx)
    c, h, w = x.shape[1:]
    out = rt.empty((bid.size, c, th, tw), x.dtype)
    mask = zeros((bid.size, 1, th, tw), np.int32)
    if out.size:
        _persp_forward[grid(out.size)](
            flat(x),
            rois,
            rt.to_device(m.reshape(-1)),
            bid,
            c,
            h,
            w,
            th,
            tw,
            float(attrs["spatial_scale"]),
            flat(out),
            flat(mask),
        )
    return {"Out": out, "Mask": mask, "TransformMatrix": rt.to_device(m.astype(x.dtype))}


def roi_perspective_transform_grad(ins, attrs, ctx):
    x, rois, m, bid, th, tw = _persp_setup(ins, attrs, ctx)
    c, h, w = x.shape[1:]
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _persp_backward[grid(dout.size)](
            flat(dout), rois, rt.to_device(m.reshape(-1)), bid, c, h, w, th, tw, float(attrs["spatial_scale"]), flat(dx)
        )
    return {"X@GRAD": dx}
