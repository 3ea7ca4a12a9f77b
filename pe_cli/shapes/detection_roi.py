"""The meta rules of the RoI pooling ops and their gradients (ops/detection_roi.py; out-kernels:
kernels/cpu/detection_roi.py), structured kernels (shapes/structured.py): the outputs' shapes and dtypes from X's
(Input's) and the ROIs' shapes, one row per roi. Which image each roi pools from is a value of the call (RoisNum /
BatchRoINums, or the ROIs' LoD: shapes/detection.roi_images), so the out-kernels, handed the call's context, find
it; their numba loops write into the buffers handed. One variant each, "loop"."""

import math

import numpy as np

from .structured import Meta


def _rois(ins, per=4):
    return math.prod(ins["ROIs"].shape) // per


def _dtype(a):
    return np.dtype(a.dtype)


def _pooled(ins, attrs, channels):
    return (_rois(ins), channels, attrs["pooled_height"], attrs["pooled_width"])


def roi_pool_meta(attrs, ins, facts):
    """roi_pool: Out [R, C, PH, PW] in X's dtype and Argmax (int64) of its shape."""
    x = ins["X"]
    shape = _pooled(ins, attrs, x.shape[1])
    return Meta({"Out": (shape, _dtype(x)), "Argmax": (shape, np.dtype(np.int64))}, "loop")


def pooled_meta(attrs, ins, facts):
    """roi_align, prroi_pool: Out [R, C, PH, PW] in X's dtype."""
    x = ins["X"]
    return Meta({"Out": (_pooled(ins, attrs, x.shape[1]), _dtype(x))}, "loop")


def psroi_pool_meta(attrs, ins, facts):
    """psroi_pool: Out [R, output_channels, PH, PW] in X's dtype."""
    return Meta({"Out": (_pooled(ins, attrs, attrs["output_channels"]), _dtype(ins["X"]))}, "loop")


def x_grad_meta(attrs, ins, facts):
    """The gradients of roi_pool, roi_align, psroi_pool, prroi_pool and roi_perspective_transform: X@GRAD of X's
    shape and dtype."""
    x = ins["X"]
    return Meta({"X@GRAD": (tuple(x.shape), _dtype(x))}, "loop")


def deformable_psroi_pooling_meta(attrs, ins, facts):
    """deformable_psroi_pooling: Output and TopCount [R, output_dim, PH, PW] in Input's dtype."""
    spec = (_pooled(ins, attrs, attrs["output_dim"]), _dtype(ins["Input"]))
    return Meta({"Output": spec, "TopCount": spec}, "loop")


def deformable_psroi_pooling_grad_meta(attrs, ins, facts):
    """Its gradient: Input@GRAD of Input's shape and dtype, Trans@GRAD of Trans's shape (where Trans is given) in
    Input's dtype."""
    x, trans = ins["Input"], ins.get("Trans")
    outputs = {"Input@GRAD": (tuple(x.shape), _dtype(x))}
    if trans is not None:
        outputs["Trans@GRAD"] = (tuple(trans.shape), _dtype(x))
    return Meta(outputs, "loop")


def roi_perspective_transform_meta(attrs, ins, facts):
    """roi_perspective_transform: Out [R, C, TH, TW] and TransformMatrix [R, 9] in X's dtype, Mask [R, 1, TH, TW]
    int32 (Out2InIdx and Out2InWeights left unwritten, as Fluid's CPU kernel leaves them)."""
    x, th, tw = ins["X"], attrs["transformed_height"], attrs["transformed_width"]
    r = _rois(ins, 8)
    outputs = {
        "Out": ((r, x.shape[1], th, tw), _dtype(x)),
        "Mask": ((r, 1, th, tw), np.dtype(np.int32)),
        "TransformMatrix": ((r, 9), _dtype(x)),
    }
    return Meta(outputs, "loop")
