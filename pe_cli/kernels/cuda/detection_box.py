"""Kernels of ops/detection_box.py on a GPU. prior_box, density_prior_box and anchor_generator
depend only on shapes and attributes: they are made on the host (shapes/detection.py) and
copied over, as assign_value is. iou_similarity is one thread per box pair, box_coder one per
output box, box_clip one per box (with its image's limits, found on the host from the LoD),
polygon_box_transform one per element, box_decoder_and_assign one per RoI."""

import math

import numpy as np
from numba import cuda

from ...shapes import detection as geo
from ..context import wraps
from . import runtime as rt
from ._host import host_ops
from ._launch import flat, grid
from .launcher import jit_kernel
from ...shapes.detection import variance_rows


def _on_host(cpu_kernel):
    def kernel(ins, attrs, *ctx):
        host = {k: np.empty(tuple(v.shape), dtype=v.dtype) for k, v in ins.items()}  # shapes only
        return {k: rt.to_device(v) for k, v in cpu_kernel(host, attrs, *ctx).items()}

    return wraps(cpu_kernel, kernel)


HOST_OPS = host_ops("prior_box", "density_prior_box", "anchor_generator", wrap=_on_host)


@jit_kernel
def _iou(x, y, out, n, m, plus):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < n * m:
        i = t // m
        j = t - i * m
        x0, y0, x1, y1 = x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]
        a0, b0, a1, b1 = y[4 * j], y[4 * j + 1], y[4 * j + 2], y[4 * j + 3]
        area_x = (y1 - y0 + plus) * (x1 - x0 + plus)
        area_y = (b1 - b0 + plus) * (a1 - a0 + plus)
        iw = max(min(x1, a1) - max(x0, a0) + plus, 0.0)
        ih = max(min(y1, b1) - max(y0, b0) + plus, 0.0)
        inter = iw * ih
        out[t] = inter / (area_x + area_y - inter)
        t += step


def iou_similarity(ins, attrs):
    x, y = ins["X"], ins["Y"]
    n, m = x.shape[0], y.shape[0]
    out = rt.empty((n, m), x.dtype)
    if n * m:
        _iou[grid(n * m)](flat(x), flat(y), flat(out), n, m, 0.0 if attrs["box_normalized"] else 1.0)
    return {"Out": out}


@jit_kernel
def _encode(t, p, v, out, n, m, plus):
    k = cuda.grid(1)
    step = cuda.gridsize(1)
    while k < n * m:
        i = k // m
        j = k - i * m
        pw = p[4 * j + 2] - p[4 * j] + plus
        ph = p[4 * j + 3] - p[4 * j + 1] + plus
        px = p[4 * j] + pw / 2
        py = p[4 * j + 1] + ph / 2
        tx = (t[4 * i + 2] + t[4 * i]) / 2
        ty = (t[4 * i + 3] + t[4 * i + 1]) / 2
        tw = t[4 * i + 2] - t[4 * i] + plus
        th = t[4 * i + 3] - t[4 * i + 1] + plus
        out[4 * k] = (tx - px) / pw / v[4 * j]
        out[4 * k + 1] = (ty - py) / ph / v[4 * j + 1]
        out[4 * k + 2] = math.log(abs(tw / pw)) / v[4 * j + 2]
        out[4 * k + 3] = math.log(abs(th / ph)) / v[4 * j + 3]
        k += step


@jit_kernel
def _decode(t, p, v, out, n, m, axis, plus):
    k = cuda.grid(1)
    step = cuda.gridsize(1)
    while k < n * m:
        i = k // m
        j = k - i * m if axis == 0 else i
        pw = p[4 * j + 2] - p[4 * j] + plus
        ph = p[4 * j + 3] - p[4 * j + 1] + plus
        px = p[4 * j] + pw / 2
        py = p[4 * j + 1] + ph / 2
        cx = v[4 * j] * t[4 * k] * pw + px
        cy = v[4 * j + 1] * t[4 * k + 1] * ph + py
        w = math.exp(v[4 * j + 2] * t[4 * k + 2]) * pw
        h = math.exp(v[4 * j + 3] * t[4 * k + 3]) * ph
        out[4 * k] = cx - w / 2
        out[4 * k + 1] = cy - h / 2
        out[4 * k + 2] = cx + w / 2 - plus
        out[4 * k + 3] = cy + h / 2 - plus
        k += step


def box_coder(ins, attrs):
    prior, target = ins["PriorBox"], ins["TargetBox"]
    if "PriorBoxVar" in ins:
        var = ins["PriorBoxVar"]
    else:
        var = rt.to_device(np.ascontiguousarray(variance_rows({}, attrs, prior.shape[0], target.dtype)))
    plus = 0.0 if attrs["box_normalized"] else 1.0
    if attrs["code_type"] == "encode_center_size":
        n, m = target.shape[0], prior.shape[0]
        out = rt.empty((n, m, 4), target.dtype)
        if n * m:
            _encode[grid(n * m)](flat(target), flat(prior), flat(var), flat(out), n, m, plus)
    else:
        n, m = target.shape[0], target.shape[1]
        out = rt.empty((n, m, 4), target.dtype)
        if n * m:
            _decode[grid(n * m)](flat(target), flat(prior), flat(var), flat(out), n, m, attrs["axis"], plus)
    return {"OutputBox": out}


@jit_kernel
def _clip(x, x_max, y_max, out, boxes, per_row):
    k = cuda.grid(1)
    step = cuda.gridsize(1)
    while k < boxes:
        r = k // per_row
        for c in range(4):
            lim = x_max[r] if c % 2 == 0 else y_max[r]
            out[4 * k + c] = max(min(x[4 * k + c], lim), 0.0)
        k += step


def box_clip(ins, attrs, ctx):
    x = ins["Input"]
    rows = x.shape[0]
    x_max, y_max = geo.clip_windows(rows, rt.to_host(ins["ImInfo"]), ctx.lod.get("Input"))
    out = rt.empty(tuple(x.shape), x.dtype)
    boxes = x.size // 4
    if boxes:
        dt = np.dtype(x.dtype)
        _clip[grid(boxes)](
            flat(x), rt.to_device(x_max.astype(dt)), rt.to_device(y_max.astype(dt)), flat(out), boxes, boxes // rows
        )
    return {"Output": out}


@jit_kernel
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


@jit_kernel
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
        _decode_assign[grid(rois)](
            flat(prior),
            flat(ins["PriorBoxVar"]),
            flat(target),
            flat(score),
            flat(decoded),
            flat(assigned),
            rois,
            classes,
            clip,
        )
    return {"DecodeBox": decoded, "OutputAssignBox": assigned}
