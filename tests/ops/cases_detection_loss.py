"""Op cases for yolo_box, sigmoid_focal_loss (forward and float64 gradient), polygon_box_transform and
box_decoder_and_assign, against loop-by-loop numpy references written from Fluid 1.8's kernels and
unit tests (test_yolo_box_op.py, test_sigmoid_focal_loss_op.py, test_polygon_box_transform.py,
test_box_decoder_and_assign_op.py)."""
import math

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(47)


def _sig(v):
    return 1 / (1 + math.exp(-v))


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
                    v = x[b, j * (5 + c):(j + 1) * (5 + c), k, col]
                    conf = _sig(v[4])
                    if conf < a["conf_thresh"]:
                        continue
                    cx, cy = (col + _sig(v[0])) * iw / w, (k + _sig(v[1])) * ih / h
                    bw = math.exp(v[2]) * a["anchors"][2 * j] * iw / (a["downsample_ratio"] * h)
                    bh = math.exp(v[3]) * a["anchors"][2 * j + 1] * ih / (a["downsample_ratio"] * h)
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if a["clip_bbox"]:
                        box = [max(box[0], 0), max(box[1], 0), min(box[2], iw - 1), min(box[3], ih - 1)]
                    r = j * h * w + k * w + col
                    boxes[b, r] = box
                    scores[b, r] = [conf * _sig(s) for s in v[5:]]
    return {"Boxes": boxes.astype(x.dtype), "Scores": scores.astype(x.dtype)}


def focal_ref(i, a):
    x, label, fg = i["X"], i["Label"].reshape(-1), max(int(i["FgNum"][0]), 1)
    out = np.zeros(x.shape)
    for r in range(x.shape[0]):
        for d in range(x.shape[1]):
            p = _sig(x[r, d])
            if label[r] == d + 1:
                out[r, d] = -a["alpha"] / fg * (1 - p) ** a["gamma"] * math.log(p)
            elif label[r] != -1:
                out[r, d] = -(1 - a["alpha"]) / fg * p ** a["gamma"] * math.log(1 - p)
    return {"Out": out.astype(x.dtype)}


def polygon_ref(i, a):
    x = i["Input"]
    out = np.empty_like(x)
    for ch in range(x.shape[1]):
        for k in range(x.shape[2]):
            for col in range(x.shape[3]):
                out[:, ch, k, col] = 4 * (col if ch % 2 == 0 else k) - x[:, ch, k, col]
    return {"Output": out}


def decode_assign_ref(i, a):
    prior, var, target = np.asarray(i["PriorBox"]), i["PriorBoxVar"], np.asarray(i["TargetBox"])
    score = np.asarray(i["BoxScore"])
    decoded = np.zeros(target.shape)
    assigned = np.zeros(prior.shape)
    for r in range(len(prior)):
        w, h = prior[r, 2] - prior[r, 0] + 1, prior[r, 3] - prior[r, 1] + 1
        cx, cy = prior[r, 0] + 0.5 * w, prior[r, 1] + 0.5 * h
        for c in range(score.shape[1]):
            dx, dy, dw, dh = target[r, 4 * c:4 * c + 4] * var
            pw, ph = math.exp(min(dw, a["box_clip"])) * w, math.exp(min(dh, a["box_clip"])) * h
            px, py = dx * w + cx, dy * h + cy
            decoded[r, 4 * c:4 * c + 4] = [px - pw / 2, py - ph / 2, px + pw / 2 - 1, py + ph / 2 - 1]
        best = 1 + int(np.argmax(score[r, 1:]))
        assigned[r] = decoded[r, 4 * best:4 * best + 4]
    return {"DecodeBox": decoded.astype(target.dtype), "OutputAssignBox": assigned.astype(target.dtype)}


_YOLO = {"anchors": [10, 13, 16, 30], "class_num": 3, "conf_thresh": 0.5, "downsample_ratio": 8, "clip_bbox": True}
_LABEL = np.array([[1], [0], [3], [-1], [2]], np.int32)

CASES = [
    OpCase("yolo_box", {"X": rng.normal(size=(2, 16, 3, 4)), "ImgSize": np.array([[24, 32], [40, 30]], np.int32)},
           yolo_ref, attrs=_YOLO),
    OpCase("yolo_box", {"X": rng.normal(size=(1, 16, 4, 4)).astype("float32"),
                        "ImgSize": np.array([[30, 20]], np.int32)}, yolo_ref, rtol=1e-5, atol=1e-5,
           attrs={**_YOLO, "clip_bbox": False, "conf_thresh": 0.3}, name="yolo_box_no_clip"),
    OpCase("sigmoid_focal_loss", {"X": rng.normal(size=(5, 3)), "Label": _LABEL, "FgNum": np.array([3], np.int32)},
           focal_ref, grad=("X",)),
    OpCase("sigmoid_focal_loss", {"X": rng.normal(size=(5, 3)), "Label": _LABEL, "FgNum": np.array([0], np.int32)},
           focal_ref, attrs={"gamma": 1.5, "alpha": 0.6}, grad=("X",), name="sigmoid_focal_loss_no_foreground"),
    OpCase("polygon_box_transform", {"Input": rng.normal(size=(2, 6, 3, 4))}, polygon_ref),
    OpCase("box_decoder_and_assign", {"PriorBox": LoDTensor(rng.uniform(0, 10, (4, 2)).repeat(2, 1) +
                                                            np.array([0, 0, 5, 6]), [[0, 1, 4]]),
                                      "PriorBoxVar": np.array([0.1, 0.1, 0.2, 0.2]),
                                      "TargetBox": LoDTensor(rng.normal(0, 3, (4, 12)), [[0, 1, 4]]),
                                      "BoxScore": LoDTensor(rng.uniform(0, 1, (4, 3)), [[0, 1, 4]])},
           decode_assign_ref, attrs={"box_clip": 0.5}),
]
