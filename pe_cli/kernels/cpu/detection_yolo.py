"""CPU out-kernels of ops/detection_yolo.py (structured kernels; meta rules: shapes/detection_yolo.py): yolo_box
(numpy over whole arrays, cast into the buffers handed) and yolov3_loss (numba loops over the images, _yolo_loops.py,
writing into the buffers); ``yolov3_loss_plan`` (shapes/detection.py: the sizes and the label targets, in
``meta.args``) is shared with the CUDA kernels."""

import numpy as np

from .launches import by_variant
from .runtime.loops import lazy
from .detection_loss import _sigmoid

_loops = lazy("_yolo_loops")


def _flat(a, dtype=None):
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1)


def _score(ins, x):
    if "GTScore" in ins:
        return _flat(ins["GTScore"], x.dtype)
    return np.ones(ins["GTLabel"].size, dtype=x.dtype)


def _yolov3_loss(ins, outs, attrs, meta):
    x, gt = ins["X"], ins["GTBox"]
    b, c, h, w, size, pos, neg, anchors, amask = meta.args
    loss, obj, matched = outs["Loss"], outs["ObjectnessMask"], outs["GTMatchMask"]
    obj.fill(0)
    _loops().yolov3_loss(
        _flat(x),
        _flat(gt, x.dtype),
        _flat(ins["GTLabel"], np.int32),
        _score(ins, x),
        anchors,
        amask,
        b,
        c,
        h,
        w,
        size,
        float(attrs["ignore_thresh"]),
        float(attrs["scale_x_y"]),
        pos,
        neg,
        loss,
        obj.reshape(-1),
        matched.reshape(-1),
    )


def _yolov3_loss_grad(ins, outs, attrs, meta):
    x, gt = ins["X"], ins["GTBox"]
    b, c, h, w, size, pos, neg, anchors, amask = meta.args
    dx = outs["X@GRAD"].reshape(-1)
    dx.fill(0)
    _loops().yolov3_loss_grad(
        _flat(x),
        _flat(gt, x.dtype),
        _flat(ins["GTLabel"], np.int32),
        _score(ins, x),
        anchors,
        amask,
        b,
        c,
        h,
        w,
        size,
        pos,
        neg,
        _flat(ins["ObjectnessMask"]),
        _flat(ins["GTMatchMask"]),
        _flat(ins["Loss@GRAD"]),
        dx,
    )


def _yolo_box(ins, outs, attrs, meta):
    """Paddle 2.x's grid (``meta.args``: W): centres over W along x and H along y, sizes over downsample_ratio * W
    and * H; Fluid 1.8's: X's height for both. iou_aware: X's first ``a`` channels one IoU logit per anchor."""
    x, size = ins["X"], np.asarray(ins["ImgSize"], np.int64)
    n, _, h, w = x.shape
    classes = attrs["class_num"]
    anchors = np.asarray(attrs["anchors"], np.float64).reshape(-1, 2)
    a = anchors.shape[0]
    iou = None
    if attrs.get("iou_aware"):
        iou, x = _sigmoid(x[:, :a]), x[:, a:]
    v = x.reshape(n, a, 5 + classes, h, w)
    img_h, img_w = size[:, 0].reshape(n, 1, 1, 1), size[:, 1].reshape(n, 1, 1, 1)
    (grid_w,) = meta.args
    input_h, input_w = np.float64(attrs["downsample_ratio"] * h), np.float64(attrs["downsample_ratio"] * grid_w)
    sxy = float(np.float32(attrs["scale_x_y"]))  # (a float attribute: float32, as Paddle's kernels read it)
    bias = -0.5 * (sxy - 1.0)
    cx = (np.arange(w)[None, None, None, :] + _sigmoid(v[:, :, 0]) * sxy + bias) * img_w / grid_w
    cy = (np.arange(h)[None, None, :, None] + _sigmoid(v[:, :, 1]) * sxy + bias) * img_h / h
    bw = np.exp(v[:, :, 2]) * anchors[:, 0].reshape(1, a, 1, 1) * img_w / input_w
    bh = np.exp(v[:, :, 3]) * anchors[:, 1].reshape(1, a, 1, 1) * img_h / input_h
    x0, y0, x1, y1 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
    if attrs["clip_bbox"]:
        x0, y0 = np.maximum(x0, 0), np.maximum(y0, 0)
        x1, y1 = np.minimum(x1, img_w - 1), np.minimum(y1, img_h - 1)
    conf = _sigmoid(v[:, :, 4])
    if iou is not None:
        factor = float(np.float32(attrs["iou_aware_factor"]))
        conf = np.power(conf, 1.0 - factor) * np.power(iou, factor)
    keep = conf >= np.asarray(attrs["conf_thresh"], x.dtype)
    boxes = np.where(keep[..., None], np.stack([x0, y0, x1, y1], axis=-1), 0)
    scores = np.where(keep[:, :, None], conf[:, :, None] * _sigmoid(v[:, :, 5:]), 0)  # [n, a, C, h, w]
    np.copyto(outs["Boxes"].reshape(boxes.shape), boxes, casting="unsafe")
    np.copyto(outs["Scores"].reshape(n, a, h, w, classes), scores.transpose(0, 1, 3, 4, 2), casting="unsafe")


YOLOV3_LOSS = by_variant("yolov3_loss_out", None, loop=_yolov3_loss)
YOLOV3_LOSS_GRAD = by_variant("yolov3_loss_grad_out", None, loop=_yolov3_loss_grad)
YOLO_BOX = by_variant("yolo_box_out", None, out=_yolo_box)
