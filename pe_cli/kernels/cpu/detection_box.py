"""Kernels of ops/detection_box.py on the CPU (numpy over whole box arrays). The generators read
only their inputs' shapes (shapes/detection.py); box_coder's prior terms are shared with
the CUDA kernel. polygon_box_transform and box_decoder_and_assign are numpy over whole arrays too."""

import numpy as np

from ...shapes import detection as geo
from ...shapes.detection import variance_rows


def _hw(x):
    return int(x.shape[2]), int(x.shape[3])


def _pair(boxes, variances, dtype, names=("Boxes", "Variances")):
    return {names[0]: np.ascontiguousarray(boxes, dtype=dtype), names[1]: np.ascontiguousarray(variances, dtype=dtype)}


def prior_box(ins, attrs):
    x = ins["Input"]
    return _pair(*geo.prior_boxes(_hw(x), _hw(ins["Image"]), attrs), x.dtype)


def density_prior_box(ins, attrs):
    x = ins["Input"]
    return _pair(*geo.density_boxes(_hw(x), _hw(ins["Image"]), attrs), x.dtype)


def anchor_generator(ins, attrs):
    x = ins["Input"]
    return _pair(*geo.anchors(_hw(x), attrs), x.dtype, names=("Anchors", "Variances"))


def iou_similarity(ins, attrs):
    x, y = ins["X"], ins["Y"]
    a, b = x[:, None, :], y[None, :, :]
    plus = 0 if attrs["box_normalized"] else 1
    area_x = (a[..., 3] - a[..., 1] + plus) * (a[..., 2] - a[..., 0] + plus)
    area_y = (b[..., 3] - b[..., 1] + plus) * (b[..., 2] - b[..., 0] + plus)
    inter_w = np.maximum(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + plus, 0)
    inter_h = np.maximum(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + plus, 0)
    inter = inter_w * inter_h
    with np.errstate(divide="ignore", invalid="ignore"):
        out = inter / (area_x + area_y - inter)
    return {"Out": out.astype(x.dtype, copy=False)}


def prior_terms(prior, normalized):
    """Each prior's (center x, center y, width, height), +1 on sizes for pixel boxes."""
    plus = 0 if normalized else 1
    pw = prior[:, 2] - prior[:, 0] + plus
    ph = prior[:, 3] - prior[:, 1] + plus
    return prior[:, 0] + pw / 2, prior[:, 1] + ph / 2, pw, ph


def box_coder(ins, attrs):
    prior, target = ins["PriorBox"], ins["TargetBox"]
    var = variance_rows(ins, attrs, prior.shape[0], target.dtype)
    px, py, pw, ph = prior_terms(prior, attrs["box_normalized"])
    plus = 0 if attrs["box_normalized"] else 1
    if attrs["code_type"] == "encode_center_size":
        tx = ((target[:, 2] + target[:, 0]) / 2)[:, None]
        ty = ((target[:, 3] + target[:, 1]) / 2)[:, None]
        tw = (target[:, 2] - target[:, 0] + plus)[:, None]
        th = (target[:, 3] - target[:, 1] + plus)[:, None]
        with np.errstate(divide="ignore"):
            out = np.stack(
                [
                    (tx - px) / pw / var[:, 0],
                    (ty - py) / ph / var[:, 1],
                    np.log(np.abs(tw / pw)) / var[:, 2],
                    np.log(np.abs(th / ph)) / var[:, 3],
                ],
                axis=-1,
            )
    else:
        along = (slice(None), None) if attrs["axis"] == 1 else (None, slice(None))
        px, py, pw, ph = px[along], py[along], pw[along], ph[along]
        v = var[along]
        cx = v[..., 0] * target[..., 0] * pw + px
        cy = v[..., 1] * target[..., 1] * ph + py
        w = np.exp(v[..., 2] * target[..., 2]) * pw
        h = np.exp(v[..., 3] * target[..., 3]) * ph
        out = np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - plus, cy + h / 2 - plus], axis=-1)
    return {"OutputBox": out.astype(target.dtype, copy=False)}


def box_clip(ins, attrs, ctx):
    x = ins["Input"]
    rows = x.shape[0]
    x_max, y_max = geo.clip_windows(rows, ins["ImInfo"], ctx.lod.get("Input"))
    lim = np.stack([x_max, y_max, x_max, y_max], axis=-1).reshape((rows,) + (1,) * (x.ndim - 2) + (4,))
    return {"Output": np.maximum(np.minimum(x, lim), 0).astype(x.dtype, copy=False)}


def polygon_box_transform(ins, attrs):
    x = ins["Input"]
    _, c, h, w = x.shape
    cols = np.broadcast_to(np.arange(w, dtype=x.dtype)[None, :], (h, w))
    rows = np.broadcast_to(np.arange(h, dtype=x.dtype)[:, None], (h, w))
    grid = np.stack([cols if k % 2 == 0 else rows for k in range(c)])
    return {"Output": (4 * grid[None] - x).astype(x.dtype, copy=False)}


def box_decoder_and_assign(ins, attrs):
    prior, target, score = ins["PriorBox"], ins["TargetBox"], ins["BoxScore"]
    var = np.asarray(ins["PriorBoxVar"]).reshape(-1)
    w = prior[:, 2] - prior[:, 0] + 1
    h = prior[:, 3] - prior[:, 1] + 1
    cx, cy = (prior[:, 0] + w / 2)[:, None], (prior[:, 1] + h / 2)[:, None]
    w, h = w[:, None], h[:, None]
    clip = target.dtype.type(attrs["box_clip"])
    px = var[0] * target[:, 0::4] * w + cx
    py = var[1] * target[:, 1::4] * h + cy
    pw = np.exp(np.minimum(var[2] * target[:, 2::4], clip)) * w
    ph = np.exp(np.minimum(var[3] * target[:, 3::4], clip)) * h
    decoded = np.stack([px - pw / 2, py - ph / 2, px + pw / 2 - 1, py + ph / 2 - 1], axis=-1)  # [N, C, 4]
    rois = np.arange(len(prior))
    if score.shape[1] > 1:
        best = np.argmax(score[:, 1:], axis=1) + 1  # the first of equal maxima, as Fluid's loop
        found = score[rois, best] > -1  # Fluid's search starts from a score of -1
        assigned = np.where(found[:, None], decoded[rois, best], prior)
    else:
        assigned = prior
    return {
        "DecodeBox": decoded.reshape(target.shape).astype(target.dtype, copy=False),
        "OutputAssignBox": np.asarray(assigned, target.dtype),
    }
