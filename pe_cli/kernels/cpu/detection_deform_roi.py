"""Kernels of ops/detection_deform_roi.py (deformable_psroi_pooling): numba loops over the outputs
(_deform_roi_loops.py); ``sizes`` is shared with the CUDA kernels."""
import numpy as np

from ._numba import lazy
from .detection_roi import roi_images

_loops = lazy("_deform_roi_loops")


def sizes(x_shape, trans_shape, attrs):
    """int64 [13]: C, H, W, output_dim, PH, PW, group h, w, part h, w, sample_per_part, classes, no_trans."""
    no_trans = bool(attrs["no_trans"]) or trans_shape is None
    classes = 1 if no_trans else trans_shape[1] // 2
    return np.array([x_shape[1], x_shape[2], x_shape[3], attrs["output_dim"], attrs["pooled_height"],
                     attrs["pooled_width"], *attrs["group_size"], *attrs["part_size"], attrs["sample_per_part"],
                     classes, int(no_trans)], dtype=np.int64)


def _setup(ins, attrs):
    x = np.ascontiguousarray(ins["Input"])
    rois = np.ascontiguousarray(ins["ROIs"]).reshape(-1)
    trans = ins.get("Trans")
    g = sizes(x.shape, None if trans is None else trans.shape, attrs)
    trans = np.zeros(1, x.dtype) if trans is None else np.ascontiguousarray(trans).reshape(-1)
    bid = roi_images("deformable_psroi_pooling", rois.size // 4, x.shape[0], attrs)
    return x, rois, trans, bid, g


def deformable_psroi_pooling(ins, attrs):
    x, rois, trans, bid, g = _setup(ins, attrs)
    out = np.empty((bid.size, attrs["output_dim"], attrs["pooled_height"], attrs["pooled_width"]), dtype=x.dtype)
    count = np.empty(out.shape, dtype=x.dtype)
    _loops().forward(x.reshape(-1), rois, trans, bid, g, float(attrs["spatial_scale"]), float(attrs["trans_std"]),
                     out.reshape(-1), count.reshape(-1))
    return {"Output": out, "TopCount": count}


def deformable_psroi_pooling_grad(ins, attrs):
    x, rois, trans, bid, g = _setup(ins, attrs)
    dx = np.zeros(x.size, dtype=x.dtype)
    dtrans = np.zeros(trans.size, dtype=x.dtype)
    _loops().backward(np.ascontiguousarray(ins["Output@GRAD"]).reshape(-1), x.reshape(-1), rois, trans, bid, g,
                      float(attrs["spatial_scale"]), float(attrs["trans_std"]), dx, dtrans)
    outs = {"Input@GRAD": dx.reshape(x.shape)}
    if "Trans" in ins:
        outs["Trans@GRAD"] = dtrans.reshape(ins["Trans"].shape)
    return outs
