"""The meta rules of yolo_box, yolov3_loss and yolov3_loss_grad (ops/detection_yolo.py; out-kernels:
kernels/cpu/detection_yolo.py), structured kernels (shapes/structured.py). yolov3_loss's sizes and label targets
(shapes/detection.yolov3_loss_plan: a grid with H != W refused) are decided once per shape signature (``Meta.args``)
and its numba loops write into the buffers handed ("loop"); yolo_box's grid (Paddle 2.x's W x H, or Fluid 1.8's of
X's height along both axes: ``facts.paddle2``) too, its numpy form cast into the buffers ("out")."""

import numpy as np

from .detection import yolov3_loss_plan
from .structured import Meta

_INT32 = np.dtype(np.int32)


def yolov3_loss_meta(attrs, ins, facts):
    """yolov3_loss: Loss [N], ObjectnessMask [N, masked anchors, H, W] in X's dtype, GTMatchMask [N, B] int32."""
    x, gt = ins["X"], ins["GTBox"]
    plan = yolov3_loss_plan(tuple(x.shape), tuple(gt.shape), attrs)
    b, _, h, w, *_, amask = plan
    n, dtype = x.shape[0], np.dtype(x.dtype)
    outputs = {"Loss": ((n,), dtype), "ObjectnessMask": ((n, amask.size, h, w), dtype), "GTMatchMask": ((n, b), _INT32)}
    return Meta(outputs, "loop", args=plan)


def yolov3_loss_grad_meta(attrs, ins, facts):
    """yolov3_loss_grad: X@GRAD of X's shape and dtype."""
    x = ins["X"]
    plan = yolov3_loss_plan(tuple(x.shape), tuple(ins["GTBox"].shape), attrs)
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "loop", args=plan)


def yolo_box_meta(attrs, ins, facts):
    """yolo_box: Boxes [N, anchors * H * W, 4] and Scores [N, anchors * H * W, class_num] in X's dtype; the grid's
    width (W in Paddle 2.x, H in Fluid 1.8)."""
    x = ins["X"]
    n, _, h, w = x.shape
    rows, dtype = len(attrs["anchors"]) // 2 * h * w, np.dtype(x.dtype)
    outputs = {"Boxes": ((n, rows, 4), dtype), "Scores": ((n, rows, attrs["class_num"]), dtype)}
    return Meta(outputs, "out", args=(w if facts.paddle2 else h,))
