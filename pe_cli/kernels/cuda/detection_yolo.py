"""Kernels of ops/detection_yolo.py on a GPU: yolo_box one thread per (image, anchor, cell);
yolov3_loss one thread per image, computed by the functions the CPU loop uses (elements/yolo.py,
compiled here as device functions); an image's thread writes only its own rows, so the gradient
needs no atomics."""

import math

import numpy as np
from numba import cuda

from ..elements.yolo import make
from . import runtime as rt
from ..context import NO_CONTEXT
from ._launch import copy, flat, full, grid, zeros
from .launcher import jit_kernel
from ...shapes.detection import yolov3_loss_plan

_E = make(cuda.jit(device=True))
_image_loss, _image_grad = _E["image_loss"], _E["image_grad"]


@jit_kernel
def _loss(x, gt, label, score, anchors, amask, b, c, h, w, size, thresh, sxy, pos, neg, loss, obj, matched):
    i = cuda.grid(1)
    while i < loss.size:
        loss[i] = _image_loss(
            x, gt, label, score, anchors, amask, i, b, c, h, w, size, thresh, sxy, pos, neg, obj, matched
        )
        i += cuda.gridsize(1)


@jit_kernel
def _grad(x, gt, label, score, anchors, amask, b, c, h, w, size, pos, neg, obj, matched, dloss, dx):
    i = cuda.grid(1)
    while i < dloss.size:
        _image_grad(x, gt, label, score, anchors, amask, i, b, c, h, w, size, pos, neg, obj, matched, dloss[i], dx)
        i += cuda.gridsize(1)


def _inputs(ins, x):
    gt = ins["GTBox"]
    gt = gt if gt.dtype == x.dtype else copy(gt, x.dtype)
    label = ins["GTLabel"]
    label = label if label.dtype == np.int32 else copy(label, np.int32)
    if "GTScore" in ins:
        score = ins["GTScore"] if ins["GTScore"].dtype == x.dtype else copy(ins["GTScore"], x.dtype)
    else:
        score = full(label.shape, 1.0, x.dtype)
    return flat(gt), flat(label), flat(score)


def yolov3_loss(ins, attrs):
    x = ins["X"]
    b, c, h, w, size, pos, neg, anchors, amask = yolov3_loss_plan(x.shape, ins["GTBox"].shape, attrs)
    n = x.shape[0]
    loss = rt.empty((n,), x.dtype)
    obj = zeros((n, amask.size, h, w), x.dtype)
    matched = rt.empty((n, b), np.int32)
    if n:
        _loss[grid(n)](
            flat(x),
            *_inputs(ins, x),
            rt.to_device(anchors),
            rt.to_device(amask),
            b,
            c,
            h,
            w,
            size,
            float(attrs["ignore_thresh"]),
            float(attrs["scale_x_y"]),
            pos,
            neg,
            loss,
            flat(obj),
            flat(matched),
        )
    return {"Loss": loss, "ObjectnessMask": obj, "GTMatchMask": matched}


def yolov3_loss_grad(ins, attrs):
    x = ins["X"]
    b, c, h, w, size, pos, neg, anchors, amask = yolov3_loss_plan(x.shape, ins["GTBox"].shape, attrs)
    dx = zeros(x.shape, x.dtype)
    if x.shape[0]:
        _grad[grid(x.shape[0])](
            flat(x),
            *_inputs(ins, x),
            rt.to_device(anchors),
            rt.to_device(amask),
            b,
            c,
            h,
            w,
            size,
            pos,
            neg,
            flat(ins["ObjectnessMask"]),
            flat(ins["GTMatchMask"]),
            flat(ins["Loss@GRAD"]),
            flat(dx),
        )
    return {"X@GRAD": dx}


@jit_kernel
def _yolo(
    x, size, anchors, boxes, scores, total, a, h, w, classes, grid_w, sizes, thresh, clip, sxy, bias, iou, factor
):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    hw = h * w
    per = 5 + classes + iou  # channels per anchor (iou: X's first ``a`` channels hold one IoU each)
    while t < total:  # t = (i * a + j) * hw + cell: the output box's index
        i = t // (a * hw)
        j = (t // hw) % a
        cell = t % hw
        k = cell // w
        col = cell % w
        base = i * a * per * hw + iou * a * hw + j * (5 + classes) * hw + cell
        conf = 1.0 / (1.0 + math.exp(-x[base + 4 * hw]))
        if iou:
            q = 1.0 / (1.0 + math.exp(-x[i * a * per * hw + j * hw + cell]))
            conf = conf ** (1.0 - factor) * q**factor
        img_h = size[2 * i]
        img_w = size[2 * i + 1]
        keep = conf >= thresh
        cx = (col + sxy / (1.0 + math.exp(-x[base])) + bias) * img_w / grid_w  # Fluid 1.8's: grid_w = H
        cy = (k + sxy / (1.0 + math.exp(-x[base + hw])) + bias) * img_h / h
        bw = math.exp(x[base + 2 * hw]) * anchors[2 * j] * img_w / sizes[1]
        bh = math.exp(x[base + 3 * hw]) * anchors[2 * j + 1] * img_h / sizes[0]
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


def yolo_box(ins, attrs, ctx=NO_CONTEXT):
    """kernels/cpu/detection_yolo.py's yolo_box: Paddle 2.x's W x H grid (``ctx.paddle2``) or Fluid 1.8's."""
    x = ins["X"]
    n, _, h, w = x.shape
    classes = attrs["class_num"]
    a = len(attrs["anchors"]) // 2
    total = n * a * h * w
    boxes, scores = rt.empty((n, a * h * w, 4), x.dtype), rt.empty((n, a * h * w, classes), x.dtype)
    if total:
        size = rt.to_device(np.ascontiguousarray(rt.to_host(ins["ImgSize"]), dtype=np.float64).reshape(-1))
        thresh = float(np.asarray(attrs["conf_thresh"], np.dtype(x.dtype)))
        grid_w = w if ctx.paddle2 else h
        sxy = float(np.float32(attrs["scale_x_y"]))  # (float attributes: float32, as Paddle's kernels read them)
        sizes = rt.to_device(np.array([attrs["downsample_ratio"] * h, attrs["downsample_ratio"] * grid_w], np.float64))
        _yolo[grid(total)](
            flat(x),
            size,
            rt.to_device(np.asarray(attrs["anchors"], np.float64)),
            flat(boxes),
            flat(scores),
            total,
            a,
            h,
            w,
            classes,
            grid_w,
            sizes,
            thresh,
            bool(attrs["clip_bbox"]),
            sxy,
            -0.5 * (sxy - 1.0),
            int(bool(attrs.get("iou_aware"))),
            float(np.float32(attrs.get("iou_aware_factor", 0.5))),
        )
    return {"Boxes": boxes, "Scores": scores}
