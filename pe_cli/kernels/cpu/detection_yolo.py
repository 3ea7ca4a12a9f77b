"""Kernels of ops/detection_yolo.py (yolov3_loss): numba loops over the images (_yolo_loops.py);
``prepare`` (the flat inputs, the sizes and the label targets) is shared with the CUDA kernels."""
import numpy as np

from ._numba import lazy

_loops = lazy("_yolo_loops")


def prepare(x_shape, gt_shape, attrs):
    """(b, c, h, w, input_size, pos, neg, anchors int64, anchor_mask int64)."""
    n, _, h, w = x_shape
    c = attrs["class_num"]
    pos, neg = 1.0, 0.0
    if attrs["use_label_smooth"]:
        smooth = min(1.0 / c, 1.0 / 40)
        pos, neg = 1.0 - smooth, smooth
    return (gt_shape[1], c, h, w, attrs["downsample_ratio"] * h, pos, neg,
            np.asarray(attrs["anchors"], dtype=np.int64), np.asarray(attrs["anchor_mask"], dtype=np.int64))


def _flat(a, dtype=None):
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1)


def _score(ins, x):
    if "GTScore" in ins:
        return _flat(ins["GTScore"], x.dtype)
    return np.ones(ins["GTLabel"].size, dtype=x.dtype)


def yolov3_loss(ins, attrs):
    x, gt = ins["X"], ins["GTBox"]
    b, c, h, w, size, pos, neg, anchors, amask = prepare(x.shape, gt.shape, attrs)
    n = x.shape[0]
    loss = np.empty(n, dtype=x.dtype)
    obj = np.zeros((n, amask.size, h, w), dtype=x.dtype)
    matched = np.empty((n, b), dtype=np.int32)
    _loops().yolov3_loss(_flat(x), _flat(gt, x.dtype), _flat(ins["GTLabel"], np.int32), _score(ins, x), anchors,
                         amask, b, c, h, w, size, float(attrs["ignore_thresh"]), float(attrs["scale_x_y"]), pos, neg,
                         loss, obj.reshape(-1), matched.reshape(-1))
    return {"Loss": loss, "ObjectnessMask": obj, "GTMatchMask": matched}


def yolov3_loss_grad(ins, attrs):
    x, gt = ins["X"], ins["GTBox"]
    b, c, h, w, size, pos, neg, anchors, amask = prepare(x.shape, gt.shape, attrs)
    dx = np.zeros(x.size, dtype=x.dtype)
    _loops().yolov3_loss_grad(_flat(x), _flat(gt, x.dtype), _flat(ins["GTLabel"], np.int32), _score(ins, x),
                              anchors, amask, b, c, h, w, size, pos, neg, _flat(ins["ObjectnessMask"]),
                              _flat(ins["GTMatchMask"]), _flat(ins["Loss@GRAD"]), dx)
    return {"X@GRAD": dx.reshape(x.shape)}
