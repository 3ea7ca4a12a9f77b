"""CUDA twin of kernels/cpu/detection_yolo.py: one thread per image, computed by the functions the
CPU loop uses (cpu/_yolo_elems.py, compiled here as device functions); an image's thread writes
only its own rows, so the gradient needs no atomics."""
import numpy as np
from numba import cuda

from ..cpu._yolo_elems import make
from ..cpu.detection_yolo import prepare
from . import runtime as rt
from ._launch import copy, flat, full, grid, zeros

_E = make(cuda.jit(device=True))
_image_loss, _image_grad = _E["image_loss"], _E["image_grad"]


@cuda.jit
def _loss(x, gt, label, score, anchors, amask, b, c, h, w, size, thresh, sxy, pos, neg, loss, obj, matched):
    i = cuda.grid(1)
    while i < loss.size:
        loss[i] = _image_loss(x, gt, label, score, anchors, amask, i, b, c, h, w, size, thresh, sxy, pos, neg, obj,
                              matched)
        i += cuda.gridsize(1)


@cuda.jit
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
    b, c, h, w, size, pos, neg, anchors, amask = prepare(x.shape, ins["GTBox"].shape, attrs)
    n = x.shape[0]
    loss = rt.empty((n,), x.dtype)
    obj = zeros((n, amask.size, h, w), x.dtype)
    matched = rt.empty((n, b), np.int32)
    if n:
        _loss[grid(n)](flat(x), *_inputs(ins, x), rt.to_device(anchors), rt.to_device(amask), b, c, h, w, size,
                       float(attrs["ignore_thresh"]), float(attrs["scale_x_y"]), pos, neg, loss, flat(obj),
                       flat(matched))
    return {"Loss": loss, "ObjectnessMask": obj, "GTMatchMask": matched}


def yolov3_loss_grad(ins, attrs):
    x = ins["X"]
    b, c, h, w, size, pos, neg, anchors, amask = prepare(x.shape, ins["GTBox"].shape, attrs)
    dx = zeros(x.shape, x.dtype)
    if x.shape[0]:
        _grad[grid(x.shape[0])](flat(x), *_inputs(ins, x), rt.to_device(anchors), rt.to_device(amask), b, c, h, w,
                                size, pos, neg, flat(ins["ObjectnessMask"]), flat(ins["GTMatchMask"]),
                                flat(ins["Loss@GRAD"]), flat(dx))
    return {"X@GRAD": dx}
