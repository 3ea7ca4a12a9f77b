"""Op cases for yolo_box and yolov3_loss. yolo_box: a loop-by-loop numpy reference written from Fluid
1.8's kernel and unit test (test_yolo_box_op.py). yolov3_loss: a numpy reference following Fluid 1.8's
test_yolov3_loss_op.py (IoUs of all predictions against all gt boxes at once, then a loop over the gt
boxes), with Fluid's kernel's details: grid size H for both coordinates, boxes with w or h below 1e-6
are empty."""

import math

import numpy as np

from op_test import OpCase
from tests.ops.cases_detection_loss import _sig
from tests.ops.paddle26 import recorded_cases

rng = np.random.default_rng(23)


def _sce(x, label):
    return np.maximum(x, 0) - x * label + np.log1p(np.exp(-np.abs(x)))


def _iou(a, b):
    """IoU of boxes a [..., 4] and b [..., 4] (centre x, y, w, h), broadcasting."""
    lo = np.maximum(a[..., :2] - a[..., 2:] / 2, b[..., :2] - b[..., 2:] / 2)
    hi = np.minimum(a[..., :2] + a[..., 2:] / 2, b[..., :2] + b[..., 2:] / 2)
    side = hi - lo
    inter = np.where((side[..., 0] < 0) | (side[..., 1] < 0), 0.0, side[..., 0] * side[..., 1])
    return inter / (a[..., 2] * a[..., 3] + b[..., 2] * b[..., 3] - inter)


def _ref(i, a):
    x, gt, label = i["X"], i["GTBox"], i["GTLabel"]
    n, _, h, w = x.shape
    b = gt.shape[1]
    score = i.get("GTScore", np.ones((n, b)))
    anchors = np.array(a["anchors"], float).reshape(-1, 2)
    mask, c, sxy = list(a["anchor_mask"]), a["class_num"], a["scale_x_y"]
    size = a["downsample_ratio"] * h
    smooth = min(1.0 / c, 1.0 / 40) if a["use_label_smooth"] else 0.0
    x = x.reshape(n, len(mask), 5 + c, h, w)
    sig = 1 / (1 + np.exp(-x[:, :, :2]))
    ky, kx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    pred = np.stack(
        [
            (kx + sig[:, :, 0] * sxy - 0.5 * (sxy - 1)) / h,
            (ky + sig[:, :, 1] * sxy - 0.5 * (sxy - 1)) / h,
            np.exp(x[:, :, 2]) * anchors[mask, 0][None, :, None, None] / size,
            np.exp(x[:, :, 3]) * anchors[mask, 1][None, :, None, None] / size,
        ],
        axis=-1,
    )
    valid = (gt[:, :, 2] >= 1e-6) & (gt[:, :, 3] >= 1e-6)
    ious = np.where(valid[:, None, None, None, :], _iou(pred[:, :, :, :, None, :], gt[:, None, None, None]), 0)
    obj = np.where(ious.max(axis=-1) > a["ignore_thresh"], -1.0, 0.0)
    loss = np.zeros(n)
    matched = np.full((n, b), -1, np.int32)
    for im in range(n):
        for t in range(b):
            if not valid[im, t]:
                continue
            shapes = np.c_[np.zeros((len(anchors), 2)), anchors / size]
            fit = _iou(shapes, np.r_[0.0, 0.0, gt[im, t, 2:]])
            best = int(np.argmax(fit)) if fit.max() > 0 else 0
            if best not in mask:
                continue
            j = mask.index(best)
            matched[im, t] = j
            gi, gj = min(int(gt[im, t, 0] * w), w - 1), min(int(gt[im, t, 1] * h), h - 1)
            v = x[im, j, :, gj, gi]
            tw, th = np.log(gt[im, t, 2:] * size / anchors[best])
            scale = (2 - gt[im, t, 2] * gt[im, t, 3]) * score[im, t]
            loss[im] += (
                _sce(v[0], gt[im, t, 0] * h - gi) + _sce(v[1], gt[im, t, 1] * h - gj) + abs(v[2] - tw) + abs(v[3] - th)
            ) * scale
            target = np.where(np.arange(c) == label[im, t], 1 - smooth, smooth)
            loss[im] += _sce(v[5:], target).sum() * score[im, t]
            obj[im, j, gj, gi] = score[im, t]
    objx = x[:, :, 4]
    loss += np.where(obj > 1e-5, _sce(objx, 1.0) * obj, np.where(obj > -0.5, _sce(objx, 0.0), 0)).sum(axis=(1, 2, 3))
    return {"Loss": loss.astype(i["X"].dtype), "ObjectnessMask": obj.astype(i["X"].dtype), "GTMatchMask": matched}


_ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198, 373, 326]


def _inputs(n, mask, c, h, w, b, score=True, sizes=(0.03, 0.3)):
    x = np.log(1 / rng.uniform(0.05, 0.95, (n, len(mask) * (5 + c), h, w)) - 1)
    gt = np.c_[rng.uniform(0.05, 0.95, (n * b, 2)), rng.uniform(*sizes, (n * b, 2))].reshape(n, b, 4)
    gt[rng.random((n, b)) < 0.3] = 0  # empty boxes
    ins = {"X": x, "GTBox": gt, "GTLabel": rng.integers(0, c, (n, b)).astype(np.int32)}
    if score:
        ins["GTScore"] = rng.uniform(0.3, 1.0, (n, b))
    return ins


_ATTRS = {
    "anchors": _ANCHORS,
    "anchor_mask": [0, 1, 2],
    "class_num": 4,
    "ignore_thresh": 0.7,
    "downsample_ratio": 32,
    "use_label_smooth": True,
    "scale_x_y": 1.0,
}

CASES = [
    OpCase(
        "yolov3_loss",
        _inputs(2, [0, 1, 2], 4, 5, 5, 8),
        _ref,
        attrs=dict(_ATTRS, ignore_thresh=0.4),
        grad=("X",),
        loss_outputs=("Loss",),
    ),
    OpCase(
        "yolov3_loss",
        _inputs(3, [3, 4, 5], 2, 4, 4, 5, score=False, sizes=(0.1, 0.9)),
        _ref,
        attrs=dict(
            _ATTRS,
            anchor_mask=[3, 4, 5],
            class_num=2,
            use_label_smooth=False,
            ignore_thresh=0.3,
            scale_x_y=1.2,
            downsample_ratio=16,
        ),
        grad=("X",),
        loss_outputs=("Loss",),
        name="yolov3_loss_no_score_scale_xy",
    ),
    OpCase(
        "yolov3_loss",
        _inputs(2, [1, 7], 3, 6, 6, 6, sizes=(0.05, 0.8)),
        _ref,
        attrs=dict(_ATTRS, anchor_mask=[1, 7], class_num=3, ignore_thresh=0.5),
        grad=("X",),
        loss_outputs=("Loss",),
        name="yolov3_loss_larger_map",  # (a grid with H != W: refused, as Fluid 1.8.5 and Paddle 2.6.2 refuse it)
    ),
]


def yolo_ref(i, a):
    x, size = i["X"], i["ImgSize"]
    n, _, h, w = x.shape
    an = len(a["anchors"]) // 2
    c = a["class_num"]
    boxes, scores = np.zeros((n, an * h * w, 4)), np.zeros((n, an * h * w, c))
    for b in range(n):
        ih, iw = size[b]
        for j in range(an):
            for k in range(h):
                for col in range(w):
                    v = x[b, j * (5 + c) : (j + 1) * (5 + c), k, col]
                    conf = _sig(v[4])
                    if conf < a["conf_thresh"]:
                        continue
                    cx, cy = (col + _sig(v[0])) * iw / h, (k + _sig(v[1])) * ih / h  # Fluid's kernel: H
                    bw = math.exp(v[2]) * a["anchors"][2 * j] * iw / (a["downsample_ratio"] * h)
                    bh = math.exp(v[3]) * a["anchors"][2 * j + 1] * ih / (a["downsample_ratio"] * h)
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if a["clip_bbox"]:
                        box = [max(box[0], 0), max(box[1], 0), min(box[2], iw - 1), min(box[3], ih - 1)]
                    r = j * h * w + k * w + col
                    boxes[b, r] = box
                    scores[b, r] = [conf * _sig(s) for s in v[5:]]
    return {"Boxes": boxes.astype(x.dtype), "Scores": scores.astype(x.dtype)}


_YOLO = {"anchors": [10, 13, 16, 30], "class_num": 3, "conf_thresh": 0.5, "downsample_ratio": 8, "clip_bbox": True}
CASES += [
    OpCase(
        "yolo_box",
        {"X": rng.normal(size=(2, 16, 3, 4)), "ImgSize": np.array([[24, 32], [40, 30]], np.int32)},
        yolo_ref,
        attrs=_YOLO,
    ),
    OpCase(
        "yolo_box",
        {"X": rng.normal(size=(1, 16, 4, 4)).astype("float32"), "ImgSize": np.array([[30, 20]], np.int32)},
        yolo_ref,
        rtol=1e-5,
        atol=1e-5,
        attrs={**_YOLO, "clip_bbox": False, "conf_thresh": 0.3},
        name="yolo_box_no_clip",
    ),
    # a downsample_ratio <= 0 computes as in Fluid 1.8.5's kernel (negative sizes; 0 gives inf ones)
    OpCase(
        "yolo_box",
        {"X": rng.normal(size=(1, 16, 2, 3)), "ImgSize": np.array([[20, 24]], np.int32)},
        yolo_ref,
        attrs={**_YOLO, "clip_bbox": False, "downsample_ratio": -2},
        name="yolo_box_negative_ratio",
    ),
]

# Paddle 2.6.2's yolo_box on grids with H != W, with iou_aware and clip_bbox (tools/paddle26_semantics_cases.py)
CASES += recorded_cases("detection_yolo")
