"""Kernels of ops/detection_persp.py (roi_perspective_transform): the transform matrices in numpy
(_persp_elems.matrices, shared with the CUDA kernels), then numba loops over the outputs."""
import numpy as np

from ._numba import lazy
from ._persp_elems import matrices
from .detection_roi import roi_images

_loops = lazy("_persp_loops")


def _setup(ins, attrs):
    x = np.ascontiguousarray(ins["X"])
    rois = np.ascontiguousarray(ins["ROIs"], dtype=np.float64).reshape(-1, 8)
    th, tw = attrs["transformed_height"], attrs["transformed_width"]
    m = matrices(rois, th, tw, float(attrs["spatial_scale"]))
    bid = roi_images("roi_perspective_transform", rois.shape[0], x.shape[0], attrs)
    return x, rois.reshape(-1), m, bid, th, tw


def roi_perspective_transform(ins, attrs):
    x, rois, m, bid, th, tw = _setup(ins, attrs)
    c, h, w = x.shape[1:]
    out = np.empty((bid.size, c, th, tw), dtype=x.dtype)
    mask = np.zeros((bid.size, 1, th, tw), dtype=np.int32)
    _loops().forward(x.reshape(-1), rois, m.reshape(-1), bid, c, h, w, th, tw, float(attrs["spatial_scale"]),
                     out.reshape(-1), mask.reshape(-1))
    return {"Out": out, "Mask": mask, "TransformMatrix": m.astype(x.dtype)}


def roi_perspective_transform_grad(ins, attrs):
    x, rois, m, bid, th, tw = _setup(ins, attrs)
    c, h, w = x.shape[1:]
    dx = np.zeros(x.size, dtype=x.dtype)
    _loops().backward(np.ascontiguousarray(ins["Out@GRAD"]).reshape(-1), rois, m.reshape(-1), bid, c, h, w, th, tw,
                      float(attrs["spatial_scale"]), dx)
    return {"X@GRAD": dx.reshape(x.shape)}
