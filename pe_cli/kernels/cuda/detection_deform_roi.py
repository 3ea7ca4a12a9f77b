"""CUDA twin of kernels/cpu/detection_deform_roi.py: one thread per output element, computed by the
functions the CPU loop uses (cpu/_deform_roi_elems.py as device functions); the gradients add
atomically (bins and samples overlap)."""
from numba import cuda

from ..cpu._deform_roi_elems import make
from ..cpu.detection_deform_roi import sizes
from ..cpu.detection_roi import roi_images
from . import runtime as rt
from ._launch import flat, grid, zeros


@cuda.jit(device=True, inline=True)
def _atomic_add(a, i, v):
    cuda.atomic.add(a, i, v)


_E = make(cuda.jit(device=True), _atomic_add)
_at, _back = _E["at"], _E["back"]


@cuda.jit
def _forward(x, rois, trans, bid, g, scale, tstd, out, count):
    i = cuda.grid(1)
    while i < out.size:
        out[i], count[i] = _at(x, rois, trans, bid, i, g, scale, tstd)
        i += cuda.gridsize(1)


@cuda.jit
def _backward(dout, x, rois, trans, bid, g, scale, tstd, dx, dtrans):
    i = cuda.grid(1)
    while i < dout.size:
        _back(dout[i], x, rois, trans, bid, i, g, scale, tstd, dx, dtrans)
        i += cuda.gridsize(1)


def _setup(ins, attrs):
    x, rois = ins["Input"], ins["ROIs"]
    trans = ins.get("Trans")
    g = rt.to_device(sizes(x.shape, None if trans is None else trans.shape, attrs))
    trans = zeros((1,), x.dtype) if trans is None else flat(trans)
    bid = rt.to_device(roi_images("deformable_psroi_pooling", rois.size // 4, x.shape[0], attrs))
    return x, flat(rois), trans, bid, g, float(attrs["spatial_scale"]), float(attrs["trans_std"])


def deformable_psroi_pooling(ins, attrs):
    x, rois, trans, bid, g, scale, tstd = _setup(ins, attrs)
    out = rt.empty((bid.size, attrs["output_dim"], attrs["pooled_height"], attrs["pooled_width"]), x.dtype)
    count = rt.empty(out.shape, x.dtype)
    if out.size:
        _forward[grid(out.size)](flat(x), rois, trans, bid, g, scale, tstd, flat(out), flat(count))
    return {"Output": out, "TopCount": count}


def deformable_psroi_pooling_grad(ins, attrs):
    x, rois, trans, bid, g, scale, tstd = _setup(ins, attrs)
    dx = zeros(x.shape, x.dtype)
    dtrans = zeros((trans.size,), x.dtype)
    dout = ins["Output@GRAD"]
    if dout.size:
        _backward[grid(dout.size)](flat(dout), flat(x), rois, trans, bid, g, scale, tstd, flat(dx), dtrans)
    outs = {"Input@GRAD": dx}
    if "Trans" in ins:
        outs["Trans@GRAD"] = dtrans.reshape(ins["Trans"].shape)
    return outs
