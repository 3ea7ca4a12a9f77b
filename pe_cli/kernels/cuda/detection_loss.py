"""Kernels of ops/detection_more.py on a GPU: yolo_box one thread per (image, anchor, cell),
sigmoid_focal_loss and its gradient one per element, polygon_box_transform one per element,
box_decoder_and_assign one per RoI."""
import math

import numpy as np
from numba import cuda

from . import runtime as rt
from ._launch import flat, grid

FLT_MIN = float(np.finfo(np.float32).tiny)


@cuda.jit
def _yolo(x, size, anchors, boxes, scores, total, a, h, w, classes, input_size, thresh, clip):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    hw = h * w
    while t < total:                       # t = (i * a + j) * hw + cell: the output box's index
        i = t // (a * hw)
        j = (t // hw) % a
        cell = t % hw
        k = cell // w
        col = cell % w
        base = (i * a + j) * (5 + classes) * hw + cell
        conf = 1.0 / (1.0 + math.exp(-x[base + 4 * hw]))
        img_h = size[2 * i]
        img_w = size[2 * i + 1]
        keep = conf >= thresh
        cx = (col + 1.0 / (1.0 + math.exp(-x[base]))) * img_w / w
        cy = (k + 1.0 / (1.0 + math.exp(-x[base + hw]))) * img_h / h
        bw = math.exp(x[base + 2 * hw]) * anchors[2 * j] * img_w / input_size
        bh = math.exp(x[base + 3 * hw]) * anchors[2 * j + 1] * img_h / input_size
        x0, y0, x1, y1 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
        if clip:
            x0, y0 = max(x0, 0.0), max(y0, 0.0)
            x1, y1 = min(x1, img_w - 1.0), min(y1, img_h - 1.0)
        boxes[4 * t] = x0 if keep else 0.0
        boxes[4 * t + 1] = y0 if keep else 0.0
        boxes[4 * t + 2] = x1 if keep else 0.0
        boxes[4 * t + 3] = y1 if keep else 0.0
        for c in range(classes):
            scores[t * classes + c] = conf / (1.0 + math.exp(-x[base + (5 + c) * hw])) if keep else 0.0
        t += step


def yolo_box(ins, attrs):
    x = ins["X"]
    n, _, h, w = x.shape
    classes = attrs["class_num"]
    a = len(attrs["anchors"]) // 2
    total = n * a * h * w
    boxes, scores = rt.empty((n, a * h * w, 4), x.dtype), rt.empty((n, a * h * w, classes), x.dtype)
    if total:
        size = rt.to_device(np.ascontiguousarray(rt.to_host(ins["ImgSize"]), dtype=np.float64).reshape(-1))
        thresh = float(np.asarray(attrs["conf_thresh"], np.dtype(x.dtype)))
        _yolo[grid(total)](flat(x), size, rt.to_device(np.asarray(attrs["anchors"], np.float64)), flat(boxes),
                           flat(scores), total, a, h, w, classes, float(attrs["downsample_ratio"] * h), thresh,
                           bool(attrs["clip_bbox"]))
    return {"Boxes": boxes, "Scores": scores}


@cuda.jit
def _focal(x, label, fg, dout, out, size, classes, gamma, alpha, grad):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    f = max(fg[0], 1)
    while t < size:
        g = label[t // classes]
        d = t % classes
        pos = 1.0 if g == d + 1 else 0.0
        neg = 1.0 if (g != -1 and g != d + 1) else 0.0
        v = x[t]
        p = 1.0 / (1.0 + math.exp(-v))
        ge = 1.0 if v >= 0 else 0.0
        log_1mp = -v * ge - math.log(1.0 + math.exp(v - 2.0 * v * ge))
        log_p = math.log(max(p, FLT_MIN))
        if grad:
            tp = math.pow(1.0 - p, gamma) * (1.0 - p - p * gamma * log_p)
            tn = math.pow(p, gamma) * (log_1mp * (1.0 - p) * gamma - p)
            out[t] = (-pos * alpha / f * tp - neg * (1.0 - alpha) / f * tn) * dout[t]
        else:
            out[t] = -pos * alpha / f * math.pow(1.0 - p, gamma) * log_p - neg * (1.0 - alpha) / f * math.pow(
                p, gamma) * log_1mp
        t += step


def _run_focal(ins, attrs, grad):
    x = ins["X"]
    out = rt.empty(tuple(x.shape), x.dtype)
    dout = flat(ins["Out@GRAD"]) if grad else flat(x)
    if x.size:
        _focal[grid(x.size)](flat(x), flat(ins["Label"]), flat(ins["FgNum"]), dout, flat(out), x.size, x.shape[1],
                             float(attrs["gamma"]), float(attrs["alpha"]), grad)
    return out


def sigmoid_focal_loss(ins, attrs):
    return {"Out": _run_focal(ins, attrs, False)}


def sigmoid_focal_loss_grad(ins, attrs):
    return {"X@GRAD": _run_focal(ins, attrs, True)}


@cuda.jit
def _polygon(x, out, size, c, h, w):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < size:
        ch = (t // (h * w)) % c
        pos = (t % (h * w)) % w if ch % 2 == 0 else (t % (h * w)) // w
        out[t] = 4 * pos - x[t]
        t += step


def polygon_box_transform(ins, attrs):
    x = ins["Input"]
    out = rt.empty(tuple(x.shape), x.dtype)
    if x.size:
        _polygon[grid(x.size)](flat(x), flat(out), x.size, x.shape[1], x.shape[2], x.shape[3])
    return {"Output": out}


@cuda.jit
def _decode_assign(prior, var, target, score, decoded, assigned, rois, classes, clip):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < rois:
        w = prior[4 * i + 2] - prior[4 * i] + 1
        h = prior[4 * i + 3] - prior[4 * i + 1] + 1
        cx = prior[4 * i] + w / 2
        cy = prior[4 * i + 1] + h / 2
        for c in range(classes):
            o = (i * classes + c) * 4
            px = var[0] * target[o] * w + cx
            py = var[1] * target[o + 1] * h + cy
            pw = math.exp(min(var[2] * target[o + 2], clip)) * w
            ph = math.exp(min(var[3] * target[o + 3], clip)) * h
            decoded[o] = px - pw / 2
            decoded[o + 1] = py - ph / 2
            decoded[o + 2] = px + pw / 2 - 1
            decoded[o + 3] = py + ph / 2 - 1
        best = -1
        top = -1.0
        for c in range(1, classes):
            if score[i * classes + c] > top:
                top = score[i * classes + c]
                best = c
        for k in range(4):
            assigned[4 * i + k] = decoded[(i * classes + best) * 4 + k] if best > 0 else prior[4 * i + k]
        i += step


def box_decoder_and_assign(ins, attrs):
    prior, target, score = ins["PriorBox"], ins["TargetBox"], ins["BoxScore"]
    rois, classes = score.shape
    decoded, assigned = rt.empty(tuple(target.shape), target.dtype), rt.empty((rois, 4), target.dtype)
    if rois:
        clip = float(np.asarray(attrs["box_clip"], np.dtype(target.dtype)))
        _decode_assign[grid(rois)](flat(prior), flat(ins["PriorBoxVar"]), flat(target), flat(score), flat(decoded),
                                   flat(assigned), rois, classes, clip)
    return {"DecodeBox": decoded, "OutputAssignBox": assigned}
