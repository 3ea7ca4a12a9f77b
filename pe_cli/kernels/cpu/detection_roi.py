"""CPU out-kernels of ops/detection_roi.py (roi_pool, roi_align, psroi_pool, prroi_pool, deformable_psroi_pooling,
roi_perspective_transform and their gradients; structured kernels, meta rules in shapes/detection_roi.py, each
out-kernel handed the call's context for the ROIs' LoD): numba loops writing into the buffers handed
(_roi_loops.py, _deform_roi_loops.py, _persp_loops.py; roi_perspective_transform's matrices in numpy first,
elements/perspective.matrices, shared with the CUDA kernels). ``roi_images`` (which image each roi pools from, from
RoisNum / BatchRoINums or the rois' LoD) and ``psroi_sizes`` (deformable_psroi_pooling's sizes) are in
shapes/detection.py, shared with the CUDA kernels."""

import numpy as np

from .runtime.loops import lazy, parallel_threads, twin
from ..elements.perspective import matrices
from ...shapes.detection import psroi_sizes, roi_counts, roi_images

_loops = lazy("_roi_loops")
_deform_loops = lazy("_deform_roi_loops")
_persp_loops = lazy("_persp_loops")


def _setup(op, ins, ctx, counts_slot="RoisNum"):
    x = np.ascontiguousarray(ins["X"])
    rois = np.ascontiguousarray(ins["ROIs"]).reshape(-1)
    bid = roi_images(op, rois.size // 4, x.shape[0], ctx, roi_counts(ins, counts_slot))
    return x, rois, bid


def _forward(op, *args):
    """The op's forward loop, its parallel twin where this kernel may use several threads."""
    loops = _loops()
    twin(getattr(loops, op), getattr(loops, op + "_parallel"), parallel_threads() > 1, *args)(*args)


def _zeroed(buffer):
    """The buffer handed, flat and zeroed (a gradient's loop adds each roi's share to it)."""
    flat = buffer.reshape(-1)
    flat.fill(0)
    return flat


def _dims(x, attrs):
    return x.shape[1], x.shape[2], x.shape[3], attrs["pooled_height"], attrs["pooled_width"]


def _roi_pool(ins, outs, attrs, meta, ctx):
    x, rois, bid = _setup("roi_pool", ins, ctx)
    c, h, w, ph, pw = _dims(x, attrs)
    out, argmax = outs["Out"], outs["Argmax"]
    _forward(
        "roi_pool",
        x.reshape(-1),
        rois,
        bid,
        c,
        h,
        w,
        ph,
        pw,
        float(attrs["spatial_scale"]),
        out.reshape(-1),
        argmax.reshape(-1),
    )


def _roi_pool_grad(ins, outs, attrs, meta, ctx):
    x, _, bid = _setup("roi_pool", ins, ctx)
    c, h, w, ph, pw = _dims(x, attrs)
    dx = _zeroed(outs["X@GRAD"])
    _loops().roi_pool_grad(
        np.ascontiguousarray(ins["Out@GRAD"]).reshape(-1),
        np.ascontiguousarray(ins["Argmax"]).reshape(-1),
        bid,
        c,
        ph,
        pw,
        h * w,
        dx,
    )


def _roi_align(ins, outs, attrs, meta, ctx):
    x, rois, bid = _setup("roi_align", ins, ctx)
    c, h, w, ph, pw = _dims(x, attrs)
    out = outs["Out"]
    _forward(
        "roi_align",
        x.reshape(-1),
        rois,
        bid,
        c,
        h,
        w,
        ph,
        pw,
        float(attrs["spatial_scale"]),
        int(attrs["sampling_ratio"]),
        bool(attrs.get("aligned", False)),  # (Paddle 2.x's; Fluid 1.8's op has none)
        out.reshape(-1),
    )


def _roi_align_grad(ins, outs, attrs, meta, ctx):
    x, rois, bid = _setup("roi_align", ins, ctx)
    c, h, w, ph, pw = _dims(x, attrs)
    dx = _zeroed(outs["X@GRAD"])
    _loops().roi_align_grad(
        np.ascontiguousarray(ins["Out@GRAD"]).reshape(-1),
        rois,
        bid,
        c,
        h,
        w,
        ph,
        pw,
        float(attrs["spatial_scale"]),
        int(attrs["sampling_ratio"]),
        bool(attrs.get("aligned", False)),
        dx,
    )


def _psroi_pool(ins, outs, attrs, meta, ctx):
    x, rois, bid = _setup("psroi_pool", ins, ctx)
    c, h, w, ph, pw = _dims(x, attrs)
    oc = attrs["output_channels"]
    out = outs["Out"]
    _forward(
        "psroi_pool", x.reshape(-1), rois, bid, oc, c, h, w, ph, pw, float(attrs["spatial_scale"]), out.reshape(-1)
    )


def _psroi_pool_grad(ins, outs, attrs, meta, ctx):
    x, rois, bid = _setup("psroi_pool", ins, ctx)
    c, h, w, ph, pw = _dims(x, attrs)
    dx = _zeroed(outs["X@GRAD"])
    _loops().psroi_pool_grad(
        np.ascontiguousarray(ins["Out@GRAD"]).reshape(-1),
        rois,
        bid,
        attrs["output_channels"],
        c,
        h,
        w,
        ph,
        pw,
        float(attrs["spatial_scale"]),
        dx,
    )


def _prroi_pool(ins, outs, attrs, meta, ctx):
    x, rois, bid = _setup("prroi_pool", ins, ctx, "BatchRoINums")
    c, h, w, ph, pw = _dims(x, attrs)
    out = outs["Out"]
    _forward("prroi_pool", x.reshape(-1), rois, bid, c, h, w, ph, pw, float(attrs["spatial_scale"]), out.reshape(-1))


def _prroi_pool_grad(ins, outs, attrs, meta, ctx):
    x, rois, bid = _setup("prroi_pool", ins, ctx, "BatchRoINums")
    c, h, w, ph, pw = _dims(x, attrs)
    dx = _zeroed(outs["X@GRAD"])
    _loops().prroi_pool_grad(
        np.ascontiguousarray(ins["Out@GRAD"]).reshape(-1), rois, bid, c, h, w, ph, pw, float(attrs["spatial_scale"]), dx
    )


def _deform_setup(ins, attrs, ctx):
    x = np.ascontiguousarray(ins["Input"])
    rois = np.ascontiguousarray(ins["ROIs"]).reshape(-1)
    trans = ins.get("Trans")
    g = psroi_sizes(x.shape, None if trans is None else trans.shape, attrs)
    trans = np.zeros(1, x.dtype) if trans is None else np.ascontiguousarray(trans).reshape(-1)
    bid = roi_images("deformable_psroi_pooling", rois.size // 4, x.shape[0], ctx)
    return x, rois, trans, bid, g


def _deformable_psroi_pooling(ins, outs, attrs, meta, ctx):
    x, rois, trans, bid, g = _deform_setup(ins, attrs, ctx)
    out, count = outs["Output"], outs["TopCount"]
    _deform_loops().forward(
        x.reshape(-1),
        rois,
        trans,
        bid,
        g,
        float(attrs["spatial_scale"]),
        float(attrs["trans_std"]),
        out.reshape(-1),
        count.reshape(-1),
    )


def _deformable_psroi_pooling_grad(ins, outs, attrs, meta, ctx):
    x, rois, trans, bid, g = _deform_setup(ins, attrs, ctx)
    dx = _zeroed(outs["Input@GRAD"])  # (Trans@GRAD where Trans is given; else the loop's zeros of its own)
    dtrans = _zeroed(outs["Trans@GRAD"]) if "Trans@GRAD" in meta.outputs else np.zeros(trans.size, dtype=x.dtype)
    _deform_loops().backward(
        np.ascontiguousarray(ins["Output@GRAD"]).reshape(-1),
        x.reshape(-1),
        rois,
        trans,
        bid,
        g,
        float(attrs["spatial_scale"]),
        float(attrs["trans_std"]),
        dx,
        dtrans,
    )


def _persp_setup(ins, attrs, ctx):
    x = np.ascontiguousarray(ins["X"])
    rois = np.ascontiguousarray(ins["ROIs"], dtype=np.float64).reshape(-1, 8)
    th, tw = attrs["transformed_height"], attrs["transformed_width"]
    m = matrices(rois, th, tw, float(attrs["spatial_scale"]))
    bid = roi_images("roi_perspective_transform", rois.shape[0], x.shape[0], ctx)
    return x, rois.reshape(-1), m, bid, th, tw


def _roi_perspective_transform(ins, outs, attrs, meta, ctx):
    x, rois, m, bid, th, tw = _persp_setup(ins, attrs, ctx)
    c, h, w = x.shape[1:]
    out, mask = outs["Out"], _zeroed(outs["Mask"])
    _persp_loops().forward(
        x.reshape(-1),
        rois,
        m.reshape(-1),
        bid,
        c,
        h,
        w,
        th,
        tw,
        float(attrs["spatial_scale"]),
        out.reshape(-1),
        mask.reshape(-1),
    )
    np.copyto(outs["TransformMatrix"], m, casting="unsafe")


def _roi_perspective_transform_grad(ins, outs, attrs, meta, ctx):
    x, rois, m, bid, th, tw = _persp_setup(ins, attrs, ctx)
    c, h, w = x.shape[1:]
    dx = _zeroed(outs["X@GRAD"])
    _persp_loops().backward(
        np.ascontiguousarray(ins["Out@GRAD"]).reshape(-1),
        rois,
        m.reshape(-1),
        bid,
        c,
        h,
        w,
        th,
        tw,
        float(attrs["spatial_scale"]),
        dx,
    )


def _context(fn):
    """An out-kernel handed the call's context (the ROIs' LoD: which image each roi pools from)."""
    fn.takes_context = True
    return fn


ROI_POOL, ROI_POOL_GRAD = _context(_roi_pool), _context(_roi_pool_grad)
ROI_ALIGN, ROI_ALIGN_GRAD = _context(_roi_align), _context(_roi_align_grad)
PSROI_POOL, PSROI_POOL_GRAD = _context(_psroi_pool), _context(_psroi_pool_grad)
PRROI_POOL, PRROI_POOL_GRAD = _context(_prroi_pool), _context(_prroi_pool_grad)
DEFORMABLE_PSROI_POOLING = _context(_deformable_psroi_pooling)
DEFORMABLE_PSROI_POOLING_GRAD = _context(_deformable_psroi_pooling_grad)
ROI_PERSPECTIVE_TRANSFORM = _context(_roi_perspective_transform)
ROI_PERSPECTIVE_TRANSFORM_GRAD = _context(_roi_perspective_transform_grad)
