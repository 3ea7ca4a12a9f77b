"""CUDA twin of kernels/cpu/detection_persp.py: the transform matrices on the host (R x 9, numpy),
then one thread per output element computed by the functions the CPU loop uses (cpu/_persp_elems.py
as device functions); the gradient adds atomically."""
import numpy as np
from numba import cuda

from ..cpu._persp_elems import make, matrices
from ..cpu.detection_roi import roi_images
from . import runtime as rt
from ._launch import flat, grid, zeros


@cuda.jit(device=True, inline=True)
def _atomic_add(a, i, v):
    cuda.atomic.add(a, i, v)


_E = make(cuda.jit(device=True), _atomic_add)
_at, _back = _E["at"], _E["back"]


@cuda.jit
def _forward(x, rois, m, bid, c, h, w, th, tw, scale, out, mask):
    o = cuda.grid(1)
    while o < out.size:
        out[o], ok = _at(x, rois, m, bid, o, c, h, w, th, tw, scale)
        if o % (th * tw * c) < th * tw:
            mask[(o // (th * tw * c)) * th * tw + o % (th * tw)] = ok
        o += cuda.gridsize(1)


@cuda.jit
def _backward(dout, rois, m, bid, c, h, w, th, tw, scale, dx):
    o = cuda.grid(1)
    while o < dout.size:
        _back(dout[o], rois, m, bid, o, c, h, w, th, tw, scale, dx)
        o += cuda.gridsize(1)


def _setup(ins, attrs):
    x = ins["X"]
    rois = rt.to_host(ins["ROIs"]).astype(np.float64).reshape(-1, 8)
    th, tw = attrs["transformed_height"], attrs["transformed_width"]
    m = matrices(rois, th, tw, float(attrs["spatial_scale"]))
    bid = roi_images("roi_perspective_transform", rois.shape[0], x.shape[0], attrs)
    return x, rt.to_device(rois.reshape(-1)), m, rt.to_device(bid), th, tw


def roi_perspective_transform(ins, attrs):
    x, rois, m, bid, th, tw = _setup(ins, attrs)
    c, h, w = x.shape[1:]
    out = rt.empty((bid.size, c, th, tw), x.dtype)
    mask = zeros((bid.size, 1, th, tw), np.int32)
    if out.size:
        _forward[grid(out.size)](flat(x), rois, rt.to_device(m.reshape(-1)), bid, c, h, w, th, tw,
                                 float(attrs["spatial_scale"]), flat(out), flat(mask))
    return {"Out": out, "Mask": mask, "TransformMatrix": rt.to_device(m.astype(x.dtype))}


def roi_perspective_transform_grad(ins, attrs):
    x, rois, m, bid, th, tw = _setup(ins, attrs)
    c, h, w = x.shape[1:]
    dx = zeros(x.shape, x.dtype)
    dout = ins["Out@GRAD"]
    if dout.size:
        _backward[grid(dout.size)](flat(dout), rois, rt.to_device(m.reshape(-1)), bid, c, h, w, th, tw,
                                   float(attrs["spatial_scale"]), flat(dx))
    return {"X@GRAD": dx}
