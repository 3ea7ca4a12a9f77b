"""Op cases for the box ops (ops/detection_box.py), against loop-by-loop numpy references written
from Fluid 1.8's kernels and unit tests (test_prior_box_op.py, test_density_prior_box_op.py,
test_anchor_generator_op.py, test_iou_similarity_op.py, test_box_coder_op.py, test_box_clip_op.py,
test_polygon_box_transform.py, test_box_decoder_and_assign_op.py). None of these ops has a gradient
in Fluid."""

import math

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(41)


def _ratios(ars, flip):
    out = [1.0]
    for ar in ars:
        if all(abs(ar - o) >= 1e-6 for o in out):
            out += [ar, 1.0 / ar] if flip else [ar]
    return out


def _box(cx, cy, hw, hh, img_w, img_h):
    return [(cx - hw) / img_w, (cy - hh) / img_h, (cx + hw) / img_w, (cy + hh) / img_h]


def prior_ref(i, a):
    _, _, fh, fw = i["Input"].shape
    ih, iw = i["Image"].shape[2:]
    sw, sh = (a["step_w"], a["step_h"]) if a["step_w"] and a["step_h"] else (iw / fw, ih / fh)
    ratios = _ratios(a["aspect_ratios"], a["flip"])
    rows = []
    for h in range(fh):
        for w in range(fw):
            cx, cy = (w + a["offset"]) * sw, (h + a["offset"]) * sh
            for s, m in enumerate(a["min_sizes"]):
                square = (
                    []
                    if not a["max_sizes"]
                    else [
                        _box(cx, cy, math.sqrt(m * a["max_sizes"][s]) / 2, math.sqrt(m * a["max_sizes"][s]) / 2, iw, ih)
                    ]
                )
                rest = [
                    _box(cx, cy, m * math.sqrt(r) / 2, m / math.sqrt(r) / 2, iw, ih)
                    for r in ratios
                    if not (a["min_max_aspect_ratios_order"] and abs(r - 1) < 1e-6)
                ]
                if a["min_max_aspect_ratios_order"]:
                    rows += [_box(cx, cy, m / 2, m / 2, iw, ih)] + square + rest
                else:
                    rows += rest + square
    boxes = np.array(rows).reshape(fh, fw, -1, 4)
    if a["clip"]:
        boxes = np.clip(boxes, 0, 1)
    dt = i["Input"].dtype
    return {"Boxes": boxes.astype(dt), "Variances": np.tile(a["variances"], boxes.shape[:3] + (1,)).astype(dt)}


def density_ref(i, a):
    _, _, fh, fw = i["Input"].shape
    ih, iw = i["Image"].shape[2:]
    sw, sh = (a["step_w"], a["step_h"]) if a["step_w"] and a["step_h"] else (iw / fw, ih / fh)
    avg = int((sw + sh) * 0.5)
    rows = []
    for h in range(fh):
        for w in range(fw):
            cx, cy = (w + a["offset"]) * sw, (h + a["offset"]) * sh
            for size, d in zip(a["fixed_sizes"], a["densities"]):
                shift = avg // d
                for r in a["fixed_ratios"]:
                    bw, bh = size * math.sqrt(r), size / math.sqrt(r)
                    for di in range(d):
                        for dj in range(d):
                            x = cx - avg / 2.0 + shift / 2.0 + dj * shift
                            y = cy - avg / 2.0 + shift / 2.0 + di * shift
                            rows.append(
                                [
                                    max((x - bw / 2) / iw, 0),
                                    max((y - bh / 2) / ih, 0),
                                    min((x + bw / 2) / iw, 1),
                                    min((y + bh / 2) / ih, 1),
                                ]
                            )
    boxes = np.array(rows).reshape(fh, fw, -1, 4)
    if a["clip"]:
        boxes = np.clip(boxes, 0, 1)
    if a["flatten_to_2d"]:
        boxes = boxes.reshape(-1, 4)
    dt = i["Input"].dtype
    return {"Boxes": boxes.astype(dt), "Variances": np.tile(a["variances"], boxes.shape[:-1] + (1,)).astype(dt)}


def anchor_ref(i, a):
    _, _, fh, fw = i["Input"].shape
    sw, sh = a["stride"]
    out = np.zeros((fh, fw, len(a["anchor_sizes"]) * len(a["aspect_ratios"]), 4))
    for h in range(fh):
        for w in range(fw):
            xc, yc = w * sw + a["offset"] * (sw - 1), h * sh + a["offset"] * (sh - 1)
            k = 0
            for ar in a["aspect_ratios"]:
                for size in a["anchor_sizes"]:
                    bw = math.floor(math.sqrt(sw * sh / ar) + 0.5)  # C's round, half away from 0
                    bh = math.floor(bw * ar + 0.5)
                    aw, ah = size / sw * bw, size / sh * bh
                    out[h, w, k] = [xc - 0.5 * (aw - 1), yc - 0.5 * (ah - 1), xc + 0.5 * (aw - 1), yc + 0.5 * (ah - 1)]
                    k += 1
    dt = i["Input"].dtype
    return {"Anchors": out.astype(dt), "Variances": np.tile(a["variances"], out.shape[:3] + (1,)).astype(dt)}


def iou_ref(i, a):
    x, y = np.asarray(i["X"]), i["Y"]
    p = 0 if a["box_normalized"] else 1
    out = np.zeros((len(x), len(y)))
    for r, (x0, y0, x1, y1) in enumerate(x):
        for c, (a0, b0, a1, b1) in enumerate(y):
            inter = max(min(x1, a1) - max(x0, a0) + p, 0) * max(min(y1, b1) - max(y0, b0) + p, 0)
            out[r, c] = inter / ((x1 - x0 + p) * (y1 - y0 + p) + (a1 - a0 + p) * (b1 - b0 + p) - inter)
    return {"Out": out.astype(x.dtype)}


def coder_ref(i, a):
    p, t = i["PriorBox"], np.asarray(i["TargetBox"])
    var = i.get("PriorBoxVar", np.tile(a["variance"] or [1.0] * 4, (len(p), 1)))
    q = 0 if a["box_normalized"] else 1
    if a["code_type"] == "encode_center_size":
        out = np.zeros((len(t), len(p), 4))
        for n in range(len(t)):
            for m in range(len(p)):
                pw, ph = p[m, 2] - p[m, 0] + q, p[m, 3] - p[m, 1] + q
                tw, th = t[n, 2] - t[n, 0] + q, t[n, 3] - t[n, 1] + q
                out[n, m] = [
                    ((t[n, 0] + t[n, 2]) / 2 - p[m, 0] - pw / 2) / pw / var[m, 0],
                    ((t[n, 1] + t[n, 3]) / 2 - p[m, 1] - ph / 2) / ph / var[m, 1],
                    math.log(abs(tw / pw)) / var[m, 2],
                    math.log(abs(th / ph)) / var[m, 3],
                ]
    else:
        out = np.zeros(t.shape)
        for n in range(t.shape[0]):
            for m in range(t.shape[1]):
                j = m if a["axis"] == 0 else n
                pw, ph = p[j, 2] - p[j, 0] + q, p[j, 3] - p[j, 1] + q
                cx = var[j, 0] * t[n, m, 0] * pw + p[j, 0] + pw / 2
                cy = var[j, 1] * t[n, m, 1] * ph + p[j, 1] + ph / 2
                w, h = math.exp(var[j, 2] * t[n, m, 2]) * pw, math.exp(var[j, 3] * t[n, m, 3]) * ph
                out[n, m] = [cx - w / 2, cy - h / 2, cx + w / 2 - q, cy + h / 2 - q]
    return {"OutputBox": out.astype(t.dtype)}


def clip_ref(i, a):
    x, info = i["Input"], i["ImInfo"]
    arr = np.asarray(x)
    lens = np.diff(x.lod()[-1]) if isinstance(x, LoDTensor) else np.ones(len(arr), np.int64)
    image = np.repeat(np.arange(len(lens)), lens)
    out = np.empty_like(arr)
    for r in range(len(arr)):
        h, w, s = info[image[r]]
        wmax, hmax = math.floor(w / s + 0.5) - 1, math.floor(h / s + 0.5) - 1
        out[r, ..., 0::2] = np.clip(arr[r, ..., 0::2], 0, wmax)
        out[r, ..., 1::2] = np.clip(arr[r, ..., 1::2], 0, hmax)
    return {"Output": out}


def _corners(n, scale=1.0):
    lo = rng.uniform(0, 0.6, (n, 2)) * scale
    return np.concatenate([lo, lo + rng.uniform(0.05, 0.4, (n, 2)) * scale], axis=1)


_PRIOR = {
    "min_sizes": [2.0, 4.0],
    "max_sizes": [5.0, 10.0],
    "aspect_ratios": [2.0, 3.0],
    "flip": True,
    "clip": True,
    "variances": [0.1, 0.1, 0.2, 0.2],
}
_FEAT, _IMG = rng.random((2, 3, 4, 5)).astype("float32"), rng.random((2, 3, 10, 12)).astype("float32")
_DENSITY = {
    "densities": [3, 2, 1],
    "fixed_sizes": [4.0, 8.0, 12.0],
    "fixed_ratios": [1.0, 2.0],
    "variances": [0.1, 0.1, 0.2, 0.2],
    "clip": False,
}

CASES = [
    OpCase("prior_box", {"Input": _FEAT, "Image": _IMG}, prior_ref, attrs=_PRIOR, rtol=1e-5, atol=1e-6),
    OpCase(
        "prior_box",
        {"Input": _FEAT, "Image": _IMG},
        prior_ref,
        rtol=1e-5,
        atol=1e-6,
        attrs={
            **_PRIOR,
            "min_max_aspect_ratios_order": True,
            "clip": False,
            "step_w": 2.0,
            "step_h": 3.0,
            "offset": 0.3,
        },
        name="prior_box_min_max_order_steps",
    ),
    OpCase(
        "prior_box",
        {"Input": _FEAT.astype("float64"), "Image": _IMG},
        prior_ref,
        name="prior_box_no_max_float64",
        attrs={**_PRIOR, "max_sizes": [], "aspect_ratios": [2.0, 0.5, 2.0], "flip": False},
    ),
    OpCase("density_prior_box", {"Input": _FEAT, "Image": _IMG}, density_ref, attrs=_DENSITY, rtol=1e-5, atol=1e-6),
    OpCase(
        "density_prior_box",
        {"Input": _FEAT.astype("float64"), "Image": _IMG},
        density_ref,
        attrs={**_DENSITY, "clip": True, "flatten_to_2d": True, "step_w": 3.0, "step_h": 4.0},
        name="density_prior_box_flat_steps",
    ),
    OpCase(
        "anchor_generator",
        {"Input": _FEAT},
        anchor_ref,
        rtol=1e-5,
        attrs={
            "anchor_sizes": [64.0, 128.0],
            "aspect_ratios": [0.5, 1.0, 2.0],
            "stride": [16.0, 16.0],
            "variances": [0.1, 0.1, 0.2, 0.2],
            "offset": 0.5,
        },
    ),
    OpCase(
        "anchor_generator",
        {"Input": _FEAT.astype("float64")},
        anchor_ref,
        name="anchor_generator_strides",
        attrs={
            "anchor_sizes": [32.0, 48.0, 80.0],
            "aspect_ratios": [0.7, 1.5],
            "stride": [8.0, 12.0],
            "variances": [1.0, 1.0, 2.0, 2.0],
            "offset": 0.2,
        },
    ),
    OpCase("iou_similarity", {"X": _corners(5), "Y": _corners(3)}, iou_ref),
    OpCase(
        "iou_similarity",
        {"X": LoDTensor(_corners(5, 20).astype("float32"), [[0, 2, 5]]), "Y": _corners(4, 20).astype("float32")},
        iou_ref,
        attrs={"box_normalized": False},
        rtol=1e-5,
        name="iou_similarity_pixels_lod",
    ),
    OpCase(
        "box_coder",
        {
            "PriorBox": _corners(6),
            "PriorBoxVar": rng.uniform(0.1, 1, (6, 4)),
            "TargetBox": LoDTensor(_corners(5), [[0, 2, 5]]),
        },
        coder_ref,
        attrs={"code_type": "encode_center_size"},
        name="box_coder_encode",
    ),
    OpCase(
        "box_coder",
        {"PriorBox": _corners(6, 30), "TargetBox": _corners(4, 30)},
        coder_ref,
        attrs={"code_type": "encode_center_size", "box_normalized": False, "variance": [0.1, 0.1, 0.2, 0.2]},
        name="box_coder_encode_pixels_variance_attr",
    ),
    OpCase(
        "box_coder",
        {
            "PriorBox": _corners(6, 30),
            "PriorBoxVar": rng.uniform(0.1, 1, (6, 4)),
            "TargetBox": rng.normal(size=(3, 6, 4)),
        },
        coder_ref,
        attrs={"code_type": "decode_center_size", "box_normalized": False},
        name="box_coder_decode",
    ),
    OpCase(
        "box_coder",
        {"PriorBox": _corners(3), "TargetBox": rng.normal(size=(3, 5, 4))},
        coder_ref,
        attrs={"code_type": "decode_center_size", "axis": 1, "variance": [0.1, 0.2, 0.3, 0.4]},
        name="box_coder_decode_axis1",
    ),
    OpCase(
        "box_coder",
        {"PriorBox": _corners(5), "TargetBox": rng.normal(size=(2, 5, 4))},
        coder_ref,
        attrs={"code_type": "decode_center_size"},
        name="box_coder_decode_no_variance",
    ),
    OpCase(
        "box_clip",
        {
            "Input": LoDTensor(rng.uniform(-2, 9, (6, 3, 4)), [[0, 1, 3, 6]]),
            "ImInfo": np.array([[5.0, 8.0, 1.0], [6.0, 6.0, 1.0], [14.0, 10.0, 2.0]]),
        },
        clip_ref,
    ),
    OpCase(
        "box_clip",
        {
            "Input": rng.uniform(-2, 9, (2, 4)).astype("float32"),
            "ImInfo": np.array([[5.0, 8.0, 1.0], [9.0, 7.0, 2.0]], "float32"),
        },
        clip_ref,
        name="box_clip_rows",
    ),
]


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
            dx, dy, dw, dh = target[r, 4 * c : 4 * c + 4] * var
            pw, ph = math.exp(min(dw, a["box_clip"])) * w, math.exp(min(dh, a["box_clip"])) * h
            px, py = dx * w + cx, dy * h + cy
            decoded[r, 4 * c : 4 * c + 4] = [px - pw / 2, py - ph / 2, px + pw / 2 - 1, py + ph / 2 - 1]
        best = 1 + int(np.argmax(score[r, 1:]))
        assigned[r] = decoded[r, 4 * best : 4 * best + 4]
    return {"DecodeBox": decoded.astype(target.dtype), "OutputAssignBox": assigned.astype(target.dtype)}


CASES += [
    OpCase("polygon_box_transform", {"Input": rng.normal(size=(2, 6, 3, 4))}, polygon_ref),
    OpCase(
        "box_decoder_and_assign",
        {
            "PriorBox": LoDTensor(rng.uniform(0, 10, (4, 2)).repeat(2, 1) + np.array([0, 0, 5, 6]), [[0, 1, 4]]),
            "PriorBoxVar": np.array([0.1, 0.1, 0.2, 0.2]),
            "TargetBox": LoDTensor(rng.normal(0, 3, (4, 12)), [[0, 1, 4]]),
            "BoxScore": LoDTensor(rng.uniform(0, 1, (4, 3)), [[0, 1, 4]]),
        },
        decode_assign_ref,
        attrs={"box_clip": 0.5},
    ),
]
