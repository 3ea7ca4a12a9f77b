"""Op cases for the training-target ops. rpn_target_assign (and retinanet_target_assign): with
use_random=False a loop reference written from Fluid 1.8's test_rpn_target_assign_op.py (straddle
filter, crowd filter, IoU matching, the first fg / bg anchors, the fake-foreground rows); with
use_random=True the sampled minibatch's invariants. generate_proposal_labels likewise.
generate_mask_labels: the foreground rois, their rows and class-slotted mask targets from a reference
that picks each roi's object by box IoU and rasterizes by testing pixel centres against the polygons
(even-odd); the polygons' edges stay at least 0.35 px from every pixel centre, where Fluid's COCO
rasterization and the centre test agree. An image without foreground rois gives its first roi with an
all -1 target."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(97)


def _iou(a, b):
    iw = min(a[2], b[2]) - max(a[0], b[0]) + 1
    ih = min(a[3], b[3]) - max(a[1], b[1]) + 1
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / ((a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - inter)


def _delta(e, g):
    ew, eh, gw, gh = e[2] - e[0] + 1, e[3] - e[1] + 1, g[2] - g[0] + 1, g[3] - g[1] + 1
    return [
        (g[0] + gw / 2 - e[0] - ew / 2) / ew,
        (g[1] + gh / 2 - e[1] - eh / 2) / eh,
        np.log(gw / ew),
        np.log(gh / eh),
    ]


def _ref(i, a):
    return _assign(
        i,
        a["rpn_batch_size_per_im"],
        a["rpn_fg_fraction"],
        a["rpn_positive_overlap"],
        a["rpn_negative_overlap"],
        a["rpn_straddle_thresh"],
    )


def _retina_ref(i, a):
    out = _assign(i, -1, -1, a["positive_overlap"], a["negative_overlap"], -1, np.asarray(i["GtLabels"]).reshape(-1))
    out["ForegroundNumber"] = np.diff(out.pop("_loc_counts")).astype(np.int32).reshape(-1, 1) + 1
    return out


def _assign(i, batch, fraction, pos, neg, t, labels=None):
    anchors, gts, crowd, info = i["Anchor"], np.asarray(i["GtBoxes"]), np.asarray(i["IsCrowd"]).reshape(-1), i["ImInfo"]
    lod = i["GtBoxes"].lod()[0]
    loc_counts = [0]
    out = {"LocationIndex": [], "ScoreIndex": [], "TargetBBox": [], "TargetLabel": [], "BBoxInsideWeight": []}
    for im in range(len(lod) - 1):
        h, w, s = info[im]
        inside = [
            k for k, b in enumerate(anchors) if t < 0 or (b[0] >= -t and b[1] >= -t and b[2] < w + t and b[3] < h + t)
        ]
        mine = [k for k in range(lod[im], lod[im + 1]) if crowd[k] == 0]
        gt = [gts[k] * s for k in mine]
        ov = np.array([[_iou(anchors[k], g) for g in gt] for k in inside]).reshape(len(inside), len(gt))
        best = ov.max(axis=1) if gt else np.zeros(len(inside))
        fg_fake = [
            r
            for r in range(len(inside))
            if best[r] >= pos or any(abs(ov[r, j] - ov[:, j].max()) < 1e-5 for j in range(len(gt)))
        ]
        fg_fake = fg_fake[: int(fraction * batch)] if batch > 0 else fg_fake
        label = {r: 1 for r in fg_fake}
        bg = [r for r in range(len(inside)) if best[r] < neg]
        bg = bg[: batch - len(fg_fake)] if batch > 0 else bg
        fakes = sum(1 for r in bg if label.get(r) == 1)
        for r in bg:
            label[r] = 0
        fg = sorted(r for r, v in label.items() if v == 1)
        loc = [fg_fake[0]] * fakes + fg
        out["LocationIndex"] += [inside[r] + im * len(anchors) for r in loc]
        out["ScoreIndex"] += [inside[r] + im * len(anchors) for r in fg + sorted(r for r, v in label.items() if v == 0)]
        fg_labels = [1] * len(fg) if labels is None else [labels[mine[int(np.argmax(ov[r]))]] for r in fg]
        out["TargetLabel"] += fg_labels + [0] * (len(out["ScoreIndex"]) - len(out["TargetLabel"]) - len(fg))
        out["TargetBBox"] += [_delta(anchors[inside[r]], gt[int(np.argmax(ov[r]))]) for r in loc]
        out["BBoxInsideWeight"] += [[0.0] * 4] * fakes + [[1.0] * 4] * (len(fg_fake) - fakes)
        loc_counts.append(len(out["LocationIndex"]))
    return {
        "LocationIndex": np.array(out["LocationIndex"], np.int32),
        "ScoreIndex": np.array(out["ScoreIndex"], np.int32),
        "TargetBBox": np.array(out["TargetBBox"]).reshape(-1, 4),
        "TargetLabel": np.array(out["TargetLabel"], np.int32).reshape(-1, 1),
        "BBoxInsideWeight": np.array(out["BBoxInsideWeight"]).reshape(-1, 4),
        **({"_loc_counts": loc_counts} if labels is not None else {}),
    }


def _anchors(n, grid=8, stride=8):
    out = []
    for y in range(grid):
        for x in range(grid):
            for size in (12, 24):
                cx, cy = x * stride + stride / 2, y * stride + stride / 2
                out.append([cx - size / 2, cy - size / 2, cx + size / 2 - 1, cy + size / 2 - 1])
    return np.array(out[:n])


def _inputs():
    # image 0's last box is thin: its best anchor overlaps it below rpn_negative_overlap (a fake foreground)
    gt = np.array(
        [[4, 4, 20, 22], [30, 10, 52, 30], [8, 40, 40, 60], [50, 2, 51, 40], [10, 12, 30, 30], [40, 44, 60, 62]],
        np.float64,
    )
    return {
        "Anchor": _anchors(128),
        "GtBoxes": LoDTensor(gt, [[0, 4, 6]]),
        "IsCrowd": LoDTensor(np.array([[0], [0], [1], [0], [0], [0]], np.int32), [[0, 4, 6]]),
        "ImInfo": np.array([[64.0, 64.0, 1.0], [64.0, 60.0, 1.0]]),
    }


def _check_sampled(outs, inputs):
    """use_random: at most rpn_batch_size_per_im (20) labels per image, at most 5 foreground; labels 1 then 0;
    indexes within the image's anchors; one target box and weight row per location index."""
    score, label, loc = outs["ScoreIndex"], outs["TargetLabel"].reshape(-1), outs["LocationIndex"]
    assert score.size == label.size <= 40 and (label == 1).sum() <= 10
    assert loc.size == outs["TargetBBox"].shape[0] == outs["BBoxInsideWeight"].shape[0] >= 2
    assert np.all((score >= 0) & (score < 256)) and set(np.unique(label)) <= {0, 1}
    assert np.isfinite(outs["TargetBBox"]).all()


_ATTRS = {
    "rpn_batch_size_per_im": 20,
    "rpn_straddle_thresh": 0.0,
    "rpn_positive_overlap": 0.5,
    "rpn_negative_overlap": 0.3,
    "rpn_fg_fraction": 0.25,
    "use_random": False,
}

CASES = [
    OpCase("rpn_target_assign", _inputs(), _ref, attrs=dict(_ATTRS)),
    OpCase(
        "rpn_target_assign",
        _inputs(),
        _ref,
        attrs=dict(
            _ATTRS, rpn_straddle_thresh=-1.0, rpn_batch_size_per_im=64, rpn_fg_fraction=0.5, rpn_negative_overlap=0.1
        ),
        name="rpn_target_assign_no_straddle_filter",
    ),
    OpCase(
        "rpn_target_assign",
        _inputs(),
        check=_check_sampled,
        attrs=dict(_ATTRS, use_random=True),
        outputs=("LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight"),
        name="rpn_target_assign_sampled",
    ),
    OpCase(
        "retinanet_target_assign",
        dict(_inputs(), GtLabels=LoDTensor(np.array([[3], [1], [2], [4], [2], [5]], np.int32), [[0, 4, 6]])),
        _retina_ref,
        attrs={"positive_overlap": 0.5, "negative_overlap": 0.4},
    ),
]


def _labels_ref(i, a):
    """generate_proposal_labels with use_random=False, a loop per image (after Fluid's
    test_generate_proposal_labels_op.py)."""
    rois, gts = np.asarray(i["RpnRois"]), np.asarray(i["GtBoxes"])
    rl, gl = i["RpnRois"].lod()[0], i["GtBoxes"].lod()[0]
    classes, crowd = np.asarray(i["GtClasses"]).reshape(-1), np.asarray(i["IsCrowd"]).reshape(-1)
    width = 4 * a["class_nums"]
    out = {"Rois": [], "LabelsInt32": [], "BboxTargets": [], "BboxInsideWeights": [], "MaxOverlapWithGT": []}
    for im in range(len(rl) - 1):
        s = i["ImInfo"][im][2]
        gt = gts[gl[im] : gl[im + 1]]
        own = [r / s for r in rois[rl[im] : rl[im + 1]]]
        if a["is_cascade_rcnn"]:  # the rows after the gt boxes' count, those of positive size
            own = [b for b in own[len(gt) :] if b[2] - b[0] + 1 > 0 and b[3] - b[1] + 1 > 0]
        boxes = list(gt) + own
        fg, bg = [], []
        for r, b in enumerate(boxes):
            ious = [_iou(b, g) for g in gt]
            top = -1.0 if r < len(gt) and crowd[gl[im] + r] else max(ious)
            if top >= a["fg_thresh"]:
                fg.append((r, next(j for j, v in enumerate(ious) if abs(v - top) < 1e-5), max(ious)))
            elif a["bg_thresh_lo"] <= top < a["bg_thresh_hi"]:
                bg.append((r, max(ious)))
        if not a["is_cascade_rcnn"]:  # cascade: every foreground and background roi
            fg = fg[: int(a["batch_size_per_im"] * a["fg_fraction"])]
            bg = bg[: a["batch_size_per_im"] - len(fg)]
        for r, j, top in fg:
            label = int(classes[gl[im] + j])
            row, wrow = np.zeros(width), np.zeros(width)
            if label > 0:
                col = 4 * (1 if a["is_cls_agnostic"] else label)
                row[col : col + 4] = np.array(_delta(boxes[r], gt[j])) / a["bbox_reg_weights"]
                wrow[col : col + 4] = 1
            out["Rois"].append(boxes[r] * s)
            out["LabelsInt32"].append(label)
            out["BboxTargets"].append(row)
            out["BboxInsideWeights"].append(wrow)
            out["MaxOverlapWithGT"].append(top)
        for r, top in bg:
            out["Rois"].append(boxes[r] * s)
            out["LabelsInt32"].append(0)
            out["BboxTargets"].append(np.zeros(width))
            out["BboxInsideWeights"].append(np.zeros(width))
            out["MaxOverlapWithGT"].append(top)
    return {
        "Rois": np.array(out["Rois"]).reshape(-1, 4),
        "LabelsInt32": np.array(out["LabelsInt32"], np.int32).reshape(-1, 1),
        "BboxTargets": np.array(out["BboxTargets"]).reshape(-1, width),
        "BboxInsideWeights": np.array(out["BboxInsideWeights"]).reshape(-1, width),
        "BboxOutsideWeights": np.array(out["BboxInsideWeights"]).reshape(-1, width),
        "MaxOverlapWithGT": np.array(out["MaxOverlapWithGT"]),
    }


def _label_inputs():
    gt = np.array([[4, 4, 20, 22], [30, 10, 52, 30], [8, 40, 40, 60], [10, 12, 30, 30], [40, 44, 60, 62]], np.float64)
    xy = rng.uniform(0, 50, (14, 2))
    rois = np.c_[xy, xy + rng.uniform(6, 30, (14, 2))] * np.repeat([1.0, 1.5], 7)[:, None]  # image 1: scale 1.5
    return {
        "RpnRois": LoDTensor(rois, [[0, 7, 14]]),
        "GtClasses": LoDTensor(np.array([[1], [3], [2], [2], [4]], np.int32), [[0, 3, 5]]),
        "IsCrowd": LoDTensor(np.array([[0], [0], [1], [0], [0]], np.int32), [[0, 3, 5]]),
        "GtBoxes": LoDTensor(gt, [[0, 3, 5]]),
        "ImInfo": np.array([[64.0, 64.0, 1.0], [96.0, 96.0, 1.5]]),
    }


_LABEL_ATTRS = {
    "batch_size_per_im": 8,
    "fg_fraction": 0.5,
    "fg_thresh": 0.5,
    "bg_thresh_hi": 0.5,
    "bg_thresh_lo": 0.0,
    "bbox_reg_weights": [0.1, 0.1, 0.2, 0.2],
    "class_nums": 5,
    "use_random": False,
    "is_cls_agnostic": False,
    "is_cascade_rcnn": False,
}

CASES += [
    OpCase("generate_proposal_labels", _label_inputs(), _labels_ref, attrs=dict(_LABEL_ATTRS)),
    OpCase(
        "generate_proposal_labels",
        _label_inputs(),
        _labels_ref,
        attrs=dict(_LABEL_ATTRS, is_cls_agnostic=True, class_nums=2, fg_thresh=0.3, batch_size_per_im=20),
        name="generate_proposal_labels_class_agnostic",
    ),
    OpCase(
        "generate_proposal_labels",
        _label_inputs(),
        _labels_ref,
        attrs=dict(_LABEL_ATTRS, is_cascade_rcnn=True),
        name="generate_proposal_labels_cascade",
    ),  # test_generate_proposal_labels_op.py's TestCascade
]


def _check_labels_sampled(outs, inputs):
    """use_random: at most batch_size_per_im (8) rows per image, at most 4 foreground (labels > 0 first)."""
    labels = outs["LabelsInt32"].reshape(-1)
    assert labels.size == outs["Rois"].shape[0] == outs["BboxTargets"].shape[0] <= 16
    assert 0 < (labels > 0).sum() <= 8 and np.isfinite(outs["BboxTargets"]).all()
    assert ((outs["BboxInsideWeights"].reshape(-1, 5, 4).sum(axis=2) > 0).sum(axis=1) == (labels > 0)).all()


CASES.append(
    OpCase(
        "generate_proposal_labels",
        _label_inputs(),
        check=_check_labels_sampled,
        attrs=dict(_LABEL_ATTRS, use_random=True),
        name="generate_proposal_labels_sampled",
        outputs=("Rois", "LabelsInt32", "BboxTargets", "BboxInsideWeights", "BboxOutsideWeights"),
    )
)


def _inside(px, py, poly):
    hit = False
    for (x0, y0), (x1, y1) in zip(poly, np.roll(poly, -1, axis=0)):
        if (y0 > py) != (y1 > py) and px < x0 + (py - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


def _mask_iou(a, b):
    iw, ih = min(a[2], b[2]) - max(a[0], b[0]) + 1, min(a[3], b[3]) - max(a[1], b[1]) + 1
    if iw <= 0 or ih <= 0:
        return 0.0
    return iw * ih / ((a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - iw * ih)


def mask_ref(i, a):
    m, k = a["resolution"], a["num_classes"]
    segms, lod = np.asarray(i["GtSegms"]), i["GtSegms"].lod()
    classes, crowd = np.asarray(i["GtClasses"]).reshape(-1), np.asarray(i["IsCrowd"]).reshape(-1)
    rois, labels = np.asarray(i["Rois"]), np.asarray(i["LabelsInt32"]).reshape(-1)
    rl = i["Rois"].lod()[0]
    out_rois, rows, targets = [], [], []
    for im in range(len(rl) - 1):
        objects = [
            [segms[lod[2][p] : lod[2][p + 1]] for p in range(lod[1][o], lod[1][o + 1])]
            for o in range(lod[0][im], lod[0][im + 1])
            if classes[o] > 0 and crowd[o] == 0
        ]
        fg = [r for r in range(rl[im], rl[im + 1]) if labels[r] > 0]
        if not fg:
            out_rois.append(rois[rl[im]])
            rows.append(next(r for r in range(rl[im], rl[im + 1]) if labels[r] == 0) - rl[im])
            targets.append(np.full(k * m * m, -1))
            continue
        scale = i["ImInfo"][im][2]
        for r in fg:
            roi = rois[r] / scale
            boxes = [np.r_[np.concatenate(o).min(axis=0), np.concatenate(o).max(axis=0)] for o in objects]
            best = int(np.argmax([_mask_iou(roi, b) for b in boxes]))
            w, h = max(roi[2] - roi[0], 1), max(roi[3] - roi[1], 1)
            mask = np.zeros((m, m), int)
            for poly in objects[best]:
                rel = (poly - roi[:2]) * m / [w, h]
                for y in range(m):
                    for x in range(m):
                        mask[y, x] |= _inside(x + 0.5, y + 0.5, rel)
            t = np.full(k * m * m, -1)
            t[labels[r] * m * m : (labels[r] + 1) * m * m] = mask.reshape(-1)
            out_rois.append(rois[r])
            rows.append(r - rl[im])
            targets.append(t)
    return {
        "MaskRois": np.array(out_rois).reshape(-1, 4),
        "RoiHasMaskInt32": np.array(rows, np.int32).reshape(-1, 1),
        "MaskInt32": np.array(targets, np.int32).reshape(-1, k * m * m),
    }


# image 0: a triangle (class 1), an L of two rectangles (class 2), a crowd square; image 1: one square
_POLYS = [
    [[0, 0], [16, 0], [0, 16]],
    [[18, 2], [22, 2], [22, 14], [18, 14]],
    [[22, 10], [30, 10], [30, 14], [22, 14]],
    [[4, 20], [12, 20], [12, 28], [4, 28]],
    [[2, 2], [10, 2], [10, 10], [2, 10]],
]
_POINTS = np.array([p for poly in _POLYS for p in poly], np.float32)
_SEGMS = LoDTensor(_POINTS, [[0, 3, 4], [0, 1, 3, 4, 5], [0, 3, 7, 11, 15, 19]])

MASK_CASES = [
    OpCase(
        "generate_mask_labels",
        {
            "ImInfo": np.array([[32, 32, 1.0], [40, 40, 2.0]], np.float32),
            "GtClasses": LoDTensor(np.array([[1], [2], [1], [2]], np.int32), [[0, 3, 4]]),
            "IsCrowd": LoDTensor(np.array([[0], [0], [1], [0]], np.int32), [[0, 3, 4]]),
            "GtSegms": _SEGMS,
            "Rois": LoDTensor(
                np.array(
                    [[0, 0, 16, 16], [16, 0, 32, 16], [2, 2, 14, 14], [20, 20, 28, 28], [4, 4, 20, 20], [0, 0, 8, 8]],
                    np.float32,
                ),
                [[0, 4, 6]],
            ),
            "LabelsInt32": LoDTensor(np.array([[1], [2], [0], [1], [0], [0]], np.int32), [[0, 4, 6]]),
        },
        mask_ref,
        attrs={"num_classes": 3, "resolution": 8},
    ),
]
CASES += MASK_CASES
