"""Kernels of ops/detection_more.py on the CPU (numpy over whole arrays)."""
import numpy as np

FLT_MIN = np.float32(np.finfo(np.float32).tiny)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def yolo_box(ins, attrs):
    x, size = ins["X"], np.asarray(ins["ImgSize"], np.int64)
    n, _, h, w = x.shape
    classes = attrs["class_num"]
    anchors = np.asarray(attrs["anchors"], np.float64).reshape(-1, 2)
    a = anchors.shape[0]
    v = x.reshape(n, a, 5 + classes, h, w)
    img_h, img_w = size[:, 0].reshape(n, 1, 1, 1), size[:, 1].reshape(n, 1, 1, 1)
    input_size = attrs["downsample_ratio"] * h
    cx = (np.arange(w)[None, None, None, :] + _sigmoid(v[:, :, 0])) * img_w / w
    cy = (np.arange(h)[None, None, :, None] + _sigmoid(v[:, :, 1])) * img_h / h
    bw = np.exp(v[:, :, 2]) * anchors[:, 0].reshape(1, a, 1, 1) * img_w / input_size
    bh = np.exp(v[:, :, 3]) * anchors[:, 1].reshape(1, a, 1, 1) * img_h / input_size
    x0, y0, x1, y1 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
    if attrs["clip_bbox"]:
        x0, y0 = np.maximum(x0, 0), np.maximum(y0, 0)
        x1, y1 = np.minimum(x1, img_w - 1), np.minimum(y1, img_h - 1)
    conf = _sigmoid(v[:, :, 4])
    keep = conf >= np.asarray(attrs["conf_thresh"], x.dtype)
    boxes = np.where(keep[..., None], np.stack([x0, y0, x1, y1], axis=-1), 0)
    scores = np.where(keep[:, :, None], conf[:, :, None] * _sigmoid(v[:, :, 5:]), 0)      # [n, a, C, h, w]
    return {"Boxes": boxes.reshape(n, -1, 4).astype(x.dtype),
            "Scores": scores.transpose(0, 1, 3, 4, 2).reshape(n, -1, classes).astype(x.dtype)}


def _focal_terms(ins, attrs):
    x = ins["X"]
    label = np.asarray(ins["Label"]).reshape(-1, 1).astype(np.int64)
    fg = max(int(np.asarray(ins["FgNum"]).reshape(-1)[0]), 1)
    classes = np.arange(1, x.shape[1] + 1)[None, :]
    pos = (label == classes).astype(x.dtype)
    neg = ((label != -1) & (label != classes)).astype(x.dtype)
    p = _sigmoid(x)
    log_1mp = -x * (x >= 0) - np.log1p(np.exp(x - 2 * x * (x >= 0)))        # log(1 - p), stable
    return x, p, log_1mp, pos * attrs["alpha"] / fg, neg * (1 - attrs["alpha"]) / fg


def sigmoid_focal_loss(ins, attrs):
    x, p, log_1mp, pos, neg = _focal_terms(ins, attrs)
    gamma = attrs["gamma"]
    term_pos = np.power(1 - p, gamma) * np.log(np.maximum(p, FLT_MIN))
    term_neg = np.power(p, gamma) * log_1mp
    return {"Out": (-pos * term_pos - neg * term_neg).astype(x.dtype, copy=False)}


def sigmoid_focal_loss_grad(ins, attrs):
    x, p, log_1mp, pos, neg = _focal_terms(ins, attrs)
    gamma = attrs["gamma"]
    term_pos = np.power(1 - p, gamma) * (1 - p - p * gamma * np.log(np.maximum(p, FLT_MIN)))
    term_neg = np.power(p, gamma) * (log_1mp * (1 - p) * gamma - p)
    return {"X@GRAD": ((-pos * term_pos - neg * term_neg) * ins["Out@GRAD"]).astype(x.dtype, copy=False)}


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
    decoded = np.stack([px - pw / 2, py - ph / 2, px + pw / 2 - 1, py + ph / 2 - 1], axis=-1)    # [N, C, 4]
    rois = np.arange(len(prior))
    if score.shape[1] > 1:
        best = np.argmax(score[:, 1:], axis=1) + 1          # the first of equal maxima, as Fluid's loop
        found = score[rois, best] > -1                      # Fluid's search starts from a score of -1
        assigned = np.where(found[:, None], decoded[rois, best], prior)
    else:
        assigned = prior
    return {"DecodeBox": decoded.reshape(target.shape).astype(target.dtype, copy=False),
            "OutputAssignBox": np.asarray(assigned, target.dtype)}
