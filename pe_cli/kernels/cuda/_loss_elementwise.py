"""The elementwise losses of the loss_classification family on a GPU (kernels/cuda/loss_classification.py
imports them): label_smooth, kldiv_loss, teacher_student_sigmoid_loss, bce_loss, hinge_loss and
modified_huber_loss as elementwise launches (and the shared reduction for sums);
sigmoid_cross_entropy_with_logits, one launch after the count of the labels kept."""

import math

import numpy as np
from numba import cuda

from . import runtime as rt
from ._elementwise import Binary, Ternary, Unary
from ._launch import flat, grid
from ._reduce import reduce
from .launcher import jit_kernel
from ..context import NO_CONTEXT
from ...shapes.reduction import kl_scale, scalar_shape


# -- label_smooth -----------------------------------------------------------------------------------


@cuda.jit(device=True, inline=True)
def _smooth(a, p, q):
    return (1 - p) * a + q


@cuda.jit(device=True, inline=True)
def _smooth_prior(a, b, p, q):
    return (1 - p) * a + p * b


_smooth_uniform = Unary(_smooth)
_smooth_to = Binary(_smooth_prior)


def label_smooth(ins, attrs):
    x, eps = ins["X"], float(attrs["epsilon"])
    if "PriorDist" in ins:
        prior = ins["PriorDist"]
        return {"Out": _smooth_to(x, prior.reshape((prior.size,)), eps, shape=x.shape)}
    return {"Out": _smooth_uniform(x, eps, eps / tuple(x.shape)[-1])}


def label_smooth_grad(ins, attrs):
    return {"X@GRAD": _smooth_uniform(ins["Out@GRAD"], float(attrs["epsilon"]), 0.0)}


# -- kldiv_loss -------------------------------------------------------------------------------------


@cuda.jit(device=True, inline=True)
def _kl(x, t, p, q):
    return t * (math.log(t) - x) if t > 0 else 0 * x


@jit_kernel
def _kl_grad(x, t, d, scalar, scale, dx):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < x.size:
        g = d[0] if scalar else d[i]
        dx[i] = -t[i] * g * scale if t[i] > 0 else 0
        i += step


@cuda.jit(device=True, inline=True)
def _div(a, p, q):
    return a / p


_kl_terms = Binary(_kl)
divide = Unary(_div)


def kldiv_loss(ins, attrs, ctx=NO_CONTEXT):
    x, t = ins["X"], ins["Target"]
    loss = _kl_terms(x, t)
    red = attrs["reduction"]
    if red == "none":
        return {"Loss": loss}
    total = reduce(flat(loss), (0,), "sum").reshape(scalar_shape(ctx.zero_dim))  # (0-D: a Paddle 2.x program's)
    return {"Loss": divide(total, float(max(kl_scale(x, red), 1)))}


def kldiv_loss_grad(ins, attrs):
    x, t, dloss = ins["X"], ins["Target"], ins["Loss@GRAD"]
    red = attrs["reduction"]
    dx = rt.empty(x.shape, x.dtype)
    if x.size:
        _kl_grad[grid(x.size)](flat(x), flat(t), flat(dloss), red != "none", 1.0 / max(kl_scale(x, red), 1), flat(dx))
    return {"X@GRAD": dx}


# -- teacher_student_sigmoid_loss ------------------------------------------------------------------------


@cuda.jit(device=True, inline=True)
def _teacher_student(x, label, p, q):
    sp = max(x, 0) + math.log1p(math.exp(-abs(x)))
    if label < -1:
        return sp
    if label < 0:
        return sp - x
    if label < 1:
        return 2 * sp - x * label
    return 2 * sp - x - x * (label - 1)


@cuda.jit(device=True, inline=True)
def _teacher_student_grad(x, label, d, up, low):
    s = min(max(x, low), up)
    pred = 1 / (1 + math.exp(-s))
    g = -pred if label < -1 else (1 - pred if label < 0 else label - 2 * pred)
    if s >= up or s <= low:
        g = 0.0
    return -g * d


_ts_losses = Binary(_teacher_student)
_ts_grads = Ternary(_teacher_student_grad)


def teacher_student_sigmoid_loss(ins, attrs):
    return {"Y": _ts_losses(ins["X"], ins["Label"])}


def teacher_student_sigmoid_loss_grad(ins, attrs):
    return {
        "X@GRAD": _ts_grads(
            ins["X"],
            ins["Label"],
            ins["Y@GRAD"],
            float(attrs["soft_max_up_bound"]),
            float(attrs["soft_max_lower_bound"]),
        )
    }


# -- bce_loss, hinge_loss, modified_huber_loss -------------------------------------------------------------


@cuda.jit(device=True, inline=True)
def _capped_log(v):
    """log(v), at least -100 (Fluid's bce_loss); v <= 0 gives -100 (a negative X gives NaN below)."""
    return max(math.log(v), -100.0) if v > 0 else -100.0


@cuda.jit(device=True, inline=True)
def _bce(x, label, p, q):
    if x < 0 or x > 1:  # the CPU kernel refuses it; here the loss is NaN
        return math.nan
    return (label - 1) * _capped_log(1 - x) - label * _capped_log(x)


@cuda.jit(device=True, inline=True)
def _bce_grad(x, label, d, p, q):
    return d * ((x - label) / max((1 - x) * x, 1e-12))


@cuda.jit(device=True, inline=True)
def _hinge(x, y, p, q):
    return max(1 - x * (2 * y - 1), 0)


@cuda.jit(device=True, inline=True)
def _hinge_grad(x, y, d, p, q):
    s = 2 * y - 1
    return -s * d if x * s < 1 else 0 * d


@cuda.jit(device=True, inline=True)
def _signed_score(x, y, p, q):
    return x * (2 * y - 1)


@cuda.jit(device=True, inline=True)
def _modified_huber(v, p, q):
    if v < -1:
        return -4 * v
    return (1 - v) * (1 - v) if v < 1 else 0 * v


@cuda.jit(device=True, inline=True)
def _modified_huber_grad(y, v, d, p, q):
    if v < -1:
        return -4 * (2 * y - 1) * d
    return -2 * (1 - v) * (2 * y - 1) * d if v < 1 else 0 * d


_BCE, _BCE_GRAD, _HINGE, _HINGE_GRAD = Binary(_bce), Ternary(_bce_grad), Binary(_hinge), Ternary(_hinge_grad)
_SIGNED, _MHL, _MHL_GRAD = Binary(_signed_score), Unary(_modified_huber), Ternary(_modified_huber_grad)


def bce_loss(ins, attrs):
    return {"Out": _BCE(ins["X"], ins["Label"])}


def bce_loss_grad(ins, attrs):
    return {"X@GRAD": _BCE_GRAD(ins["X"], ins["Label"], ins["Out@GRAD"])}


def hinge_loss(ins, attrs):
    return {"Loss": _HINGE(ins["Logits"], ins["Labels"])}


def hinge_loss_grad(ins, attrs):
    return {"Logits@GRAD": _HINGE_GRAD(ins["Logits"], ins["Labels"], ins["Loss@GRAD"])}


def modified_huber_loss(ins, attrs):
    v = _SIGNED(ins["X"], ins["Y"])
    return {"IntermediateVal": v, "Out": _MHL(v)}


def modified_huber_loss_grad(ins, attrs):
    return {"X@GRAD": _MHL_GRAD(ins["Y"], ins["IntermediateVal"], ins["Out@GRAD"])}


# -- sigmoid_cross_entropy_with_logits -------------------------------------------------------------

_kept = Unary(cuda.jit(device=True, inline=True)(lambda v, ignore, q: 0 if v == ignore else 1))


@jit_kernel
def _sce(x, label, norm, out, ignore):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        v = x[i]
        lab = label[i]
        if lab == ignore:
            out[i] = 0
        else:
            out[i] = (max(v, 0) - v * lab + math.log1p(math.exp(-math.fabs(v)))) / max(norm[0], 1e-5)
        i += step


@jit_kernel
def _sce_grad(x, label, dout, norm, dx, ignore):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dx.size:
        lab = label[i]
        if lab == ignore:
            dx[i] = 0
        else:
            sig = 1.0 / (1.0 + math.exp(-x[i]))
            dx[i] = (sig - lab) * dout[i] / max(norm[0], 1e-5)
        i += step


def _norm(label, attrs):
    """Count of labels that are not ignore_index (normalize=True), else 1, as a device scalar."""
    if not attrs["normalize"]:
        return rt.to_device(np.ones(1, dtype=np.float64))
    keep = _kept(label, attrs["ignore_index"], dtype=np.float64)
    return reduce(keep, range(keep.ndim), "sum").reshape((1,))


def sigmoid_cross_entropy_with_logits(ins, attrs):
    x, label = ins["X"], ins["Label"]
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _sce[grid(out.size)](flat(x), flat(label), _norm(label, attrs), flat(out), attrs["ignore_index"])
    return {"Out": out}


def sigmoid_cross_entropy_with_logits_grad(ins, attrs):
    x, label, dout = ins["X"], ins["Label"], ins["Out@GRAD"]
    dx = rt.empty(x.shape, x.dtype)
    if dx.size:
        _sce_grad[grid(dx.size)](flat(x), flat(label), flat(dout), _norm(label, attrs), flat(dx), attrs["ignore_index"])
    return {"X@GRAD": dx}
