"""Op cases for rpn_target_assign: with use_random=False a loop reference written from Fluid 1.8's
test_rpn_target_assign_op.py (straddle filter, crowd filter, IoU matching, the first fg / bg anchors,
the fake-foreground rows); with use_random=True the sampled minibatch's invariants."""
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
    return [(g[0] + gw / 2 - e[0] - ew / 2) / ew, (g[1] + gh / 2 - e[1] - eh / 2) / eh,
            np.log(gw / ew), np.log(gh / eh)]


def _ref(i, a):
    return _assign(i, a["rpn_batch_size_per_im"], a["rpn_fg_fraction"], a["rpn_positive_overlap"],
                   a["rpn_negative_overlap"], a["rpn_straddle_thresh"])


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
        inside = [k for k, b in enumerate(anchors)
                  if t < 0 or (b[0] >= -t and b[1] >= -t and b[2] < w + t and b[3] < h + t)]
        mine = [k for k in range(lod[im], lod[im + 1]) if crowd[k] == 0]
        gt = [gts[k] * s for k in mine]
        ov = np.array([[_iou(anchors[k], g) for g in gt] for k in inside]).reshape(len(inside), len(gt))
        best = ov.max(axis=1) if gt else np.zeros(len(inside))
        fg_fake = [r for r in range(len(inside)) if best[r] >= pos
                   or any(abs(ov[r, j] - ov[:, j].max()) < 1e-5 for j in range(len(gt)))]
        fg_fake = fg_fake[:int(fraction * batch)] if batch > 0 else fg_fake
        label = {r: 1 for r in fg_fake}
        bg = [r for r in range(len(inside)) if best[r] < neg]
        bg = bg[:batch - len(fg_fake)] if batch > 0 else bg
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
    return {"LocationIndex": np.array(out["LocationIndex"], np.int32),
            "ScoreIndex": np.array(out["ScoreIndex"], np.int32),
            "TargetBBox": np.array(out["TargetBBox"]).reshape(-1, 4),
            "TargetLabel": np.array(out["TargetLabel"], np.int32).reshape(-1, 1),
            "BBoxInsideWeight": np.array(out["BBoxInsideWeight"]).reshape(-1, 4),
            **({"_loc_counts": loc_counts} if labels is not None else {})}


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
    gt = np.array([[4, 4, 20, 22], [30, 10, 52, 30], [8, 40, 40, 60], [50, 2, 51, 40], [10, 12, 30, 30],
                   [40, 44, 60, 62]], np.float64)
    return {"Anchor": _anchors(128), "GtBoxes": LoDTensor(gt, [[0, 4, 6]]),
            "IsCrowd": LoDTensor(np.array([[0], [0], [1], [0], [0], [0]], np.int32), [[0, 4, 6]]),
            "ImInfo": np.array([[64.0, 64.0, 1.0], [64.0, 60.0, 1.0]])}


def _check_sampled(outs, inputs):
    """use_random: at most rpn_batch_size_per_im (20) labels per image, at most 5 foreground; labels 1 then 0;
    indexes within the image's anchors; one target box and weight row per location index."""
    score, label, loc = outs["ScoreIndex"], outs["TargetLabel"].reshape(-1), outs["LocationIndex"]
    assert score.size == label.size <= 40 and (label == 1).sum() <= 10
    assert loc.size == outs["TargetBBox"].shape[0] == outs["BBoxInsideWeight"].shape[0] >= 2
    assert np.all((score >= 0) & (score < 256)) and set(np.unique(label)) <= {0, 1}
    assert np.isfinite(outs["TargetBBox"]).all()


_ATTRS = {"rpn_batch_size_per_im": 20, "rpn_straddle_thresh": 0.0, "rpn_positive_overlap": 0.5,
          "rpn_negative_overlap": 0.3, "rpn_fg_fraction": 0.25, "use_random": False}

CASES = [
    OpCase("rpn_target_assign", _inputs(), _ref, attrs=dict(_ATTRS)),
    OpCase("rpn_target_assign", _inputs(), _ref, attrs=dict(_ATTRS, rpn_straddle_thresh=-1.0, rpn_batch_size_per_im=64,
                                                            rpn_fg_fraction=0.5, rpn_negative_overlap=0.1),
           name="rpn_target_assign_no_straddle_filter"),
    OpCase("rpn_target_assign", _inputs(), check=_check_sampled, attrs=dict(_ATTRS, use_random=True),
           outputs=("LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight"),
           name="rpn_target_assign_sampled"),
    OpCase("retinanet_target_assign",
           dict(_inputs(), GtLabels=LoDTensor(np.array([[3], [1], [2], [4], [2], [5]], np.int32), [[0, 4, 6]])),
           _retina_ref, attrs={"positive_overlap": 0.5, "negative_overlap": 0.4}),
]
