"""CUDA twins of kernels/cpu/loss_extra.py: elementwise launches, one thread per line for the
per-row ops (norm along an axis, bpr_loss), and the shared reduction for sums."""
import math

import numpy as np
from numba import cuda

from ..cpu import loss_extra as _cpu
from . import runtime as rt
from ._elementwise import Binary, Ternary, Unary
from ._launch import flat, grid
from ._reduce import reduce


def _lines(shape, axis):
    """(n, post, lines): X seen as [pre, n, post] around ``axis``; one line per (pre, post)."""
    n = shape[axis]
    post = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return n, post, (int(np.prod(shape, dtype=np.int64)) // n if n else 0)


# -- norm ---------------------------------------------------------------------------------------

@cuda.jit
def _norm(x, out, nrm, n, post, lines, eps):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < lines:
        base = (i // post) * n * post + i % post
        s = 0.0
        for k in range(n):
            v = x[base + k * post]
            s += v * v
        d = math.sqrt(s + eps)
        nrm[i] = d
        for k in range(n):
            out[base + k * post] = x[base + k * post] / d
        i += step


@cuda.jit
def _norm_grad(x, nrm, dout, dx, n, post, lines):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < lines:
        base = (i // post) * n * post + i % post
        d = nrm[i]
        dot = 0.0
        for k in range(n):
            dot += dout[base + k * post] * x[base + k * post]
        c = dot / (d * d * d)
        for k in range(n):
            j = base + k * post
            dx[j] = dout[j] / d - x[j] * c
        i += step


def norm(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    n, post, lines = _lines(tuple(x.shape), axis)
    out = rt.empty(x.shape, x.dtype)
    nrm = rt.empty(tuple(1 if d == axis else s for d, s in enumerate(x.shape)), x.dtype)
    if lines:
        _norm[grid(lines)](flat(x), flat(out), flat(nrm), n, post, lines, float(attrs["epsilon"]))
    return {"Out": out, "Norm": nrm}


def norm_grad(ins, attrs):
    x, nrm, dout = ins["X"], ins["Norm"], ins["Out@GRAD"]
    n, post, lines = _lines(tuple(x.shape), attrs["axis"] % x.ndim)
    dx = rt.empty(x.shape, x.dtype)
    if lines:
        _norm_grad[grid(lines)](flat(x), flat(nrm), flat(dout), flat(dx), n, post, lines)
    return {"X@GRAD": dx}


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


# -- smooth_l1_loss ---------------------------------------------------------------------------------

@cuda.jit
def _smooth_l1(x, y, iw, ow, weighted, s2, diff, err):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < x.size:
        d = x[i] - y[i]
        if weighted:
            d *= iw[i]
        diff[i] = d
        a = abs(d)
        e = 0.5 * s2 * d * d if a < 1.0 / s2 else a - 0.5 / s2
        err[i] = e * ow[i] if weighted else e
        i += step


@cuda.jit
def _smooth_l1_grad(diff, iw, ow, weighted, s2, dout, cols, dx, dy):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < diff.size:
        d = diff[i]
        g = s2 * d if abs(d) < 1.0 / s2 else (1.0 if d > 0 else (-1.0 if d < 0 else 0.0))
        if weighted:
            g *= iw[i] * ow[i]
        g *= dout[i // cols]
        dx[i] = g
        dy[i] = -g
        i += step


def _weights(ins, like):
    if "InsideWeight" in ins and "OutsideWeight" in ins:
        return flat(ins["InsideWeight"]), flat(ins["OutsideWeight"]), True
    return flat(like), flat(like), False


def smooth_l1_loss(ins, attrs):
    x, y = ins["X"], ins["Y"]
    iw, ow, weighted = _weights(ins, x)
    diff, err = rt.empty(x.shape, x.dtype), rt.empty(x.shape, x.dtype)
    if x.size:
        _smooth_l1[grid(x.size)](flat(x), flat(y), iw, ow, weighted, float(attrs["sigma"]) ** 2, flat(diff), flat(err))
    rows = x.shape[0]
    out = reduce(err.reshape((rows, x.size // rows if rows else 0)), (1,), "sum")
    return {"Diff": diff, "Out": out.reshape((rows, 1))}


def smooth_l1_loss_grad(ins, attrs):
    diff, dout = ins["Diff"], ins["Out@GRAD"]
    iw, ow, weighted = _weights(ins, diff)
    dx, dy = rt.empty(diff.shape, diff.dtype), rt.empty(diff.shape, diff.dtype)
    if diff.size:
        _smooth_l1_grad[grid(diff.size)](flat(diff), iw, ow, weighted, float(attrs["sigma"]) ** 2, flat(dout),
                                         diff.size // diff.shape[0], flat(dx), flat(dy))
    return {"X@GRAD": dx, "Y@GRAD": dy}


# -- kldiv_loss -------------------------------------------------------------------------------------

@cuda.jit(device=True, inline=True)
def _kl(x, t, p, q):
    return t * (math.log(t) - x) if t > 0 else 0 * x


@cuda.jit
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
_divide = Unary(_div)


def kldiv_loss(ins, attrs):
    x, t = ins["X"], ins["Target"]
    loss = _kl_terms(x, t)
    red = attrs["reduction"]
    if red == "none":
        return {"Loss": loss}
    total = reduce(flat(loss), (0,), "sum").reshape((1,))
    return {"Loss": _divide(total, float(max(_cpu.kl_scale(x, red), 1)))}


def kldiv_loss_grad(ins, attrs):
    x, t, dloss = ins["X"], ins["Target"], ins["Loss@GRAD"]
    red = attrs["reduction"]
    dx = rt.empty(x.shape, x.dtype)
    if x.size:
        _kl_grad[grid(x.size)](flat(x), flat(t), flat(dloss), red != "none", 1.0 / max(_cpu.kl_scale(x, red), 1),
                               flat(dx))
    return {"X@GRAD": dx}


# -- margin_rank_loss, rank_loss ----------------------------------------------------------------------

@cuda.jit
def _margin_rank(x1, x2, label, margin, out, act):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        v = -label[i] * (x1[i] - x2[i]) + margin
        out[i] = v if v > 0 else 0
        act[i] = 1 if v > 0 else 0
        i += step


@cuda.jit(device=True, inline=True)
def _margin_grad(label, act, d, p, q):
    return d * label * act


_margin_grads = Ternary(_margin_grad)


def margin_rank_loss(ins, attrs):
    x1 = ins["X1"]
    out, act = rt.empty(x1.shape, x1.dtype), rt.empty(x1.shape, x1.dtype)
    if out.size:
        _margin_rank[grid(out.size)](flat(x1), flat(ins["X2"]), flat(ins["Label"]), float(attrs["margin"]),
                                     flat(out), flat(act))
    return {"Out": out, "Activated": act}


def margin_rank_loss_grad(ins, attrs):
    g = _margin_grads(ins["Label"], ins["Activated"], ins["Out@GRAD"])
    return {"X1@GRAD": _divide(g, -1.0), "X2@GRAD": g}


@cuda.jit(device=True, inline=True)
def _rank(label, left, right, p, q):
    o = left - right
    return max(o, 0) + math.log1p(math.exp(-abs(o))) - label * o


@cuda.jit(device=True, inline=True)
def _rank_grad(label, o, d, p, q):
    return d * (0.5 * (1 + math.tanh(0.5 * o)) - label)


_rank_losses = Ternary(_rank)
_rank_grads = Ternary(_rank_grad)


@cuda.jit(device=True, inline=True)
def _sub(a, b, p, q):
    return a - b


_diff = Binary(_sub)


def rank_loss(ins, attrs):
    return {"Out": _rank_losses(ins["Label"], ins["Left"], ins["Right"])}


def rank_loss_grad(ins, attrs):
    g = _rank_grads(ins["Label"], _diff(ins["Left"], ins["Right"]), ins["Out@GRAD"])
    return {"Left@GRAD": g, "Right@GRAD": _divide(g, -1.0)}


# -- bpr_loss ---------------------------------------------------------------------------------------

@cuda.jit
def _bpr(x, ids, items, y):
    r = cuda.grid(1)
    step = cuda.gridsize(1)
    while r < y.size:
        pos = x[r * items + ids[r]]
        s = 0.0
        for j in range(items):
            if j != ids[r]:
                d = x[r * items + j] - pos
                s += max(d, 0) + math.log1p(math.exp(-abs(d)))
        y[r] = s / (items - 1)
        r += step


@cuda.jit
def _bpr_grad(x, ids, items, dy, dx):
    r = cuda.grid(1)
    step = cuda.gridsize(1)
    while r < dy.size:
        pos = x[r * items + ids[r]]
        c = dy[r] / (items - 1)
        total = 0.0
        for j in range(items):
            if j != ids[r]:
                g = 0.5 * (1 + math.tanh(0.5 * (x[r * items + j] - pos))) * c
                dx[r * items + j] = g
                total += g
        dx[r * items + ids[r]] = -total
        r += step


def _bpr_ids(ins):
    ids = _cpu.bpr_ids(tuple(ins["X"].shape), rt.to_host(ins["Label"]))
    return rt.to_device(ids)


def bpr_loss(ins, attrs):
    x = ins["X"]
    ids = _bpr_ids(ins)
    y = rt.empty(tuple(x.shape[:-1]) + (1,), x.dtype)
    if y.size:
        _bpr[grid(y.size)](flat(x), ids, tuple(x.shape)[-1], flat(y))
    return {"Y": y}


def bpr_loss_grad(ins, attrs):
    x = ins["X"]
    ids = _bpr_ids(ins)
    dx = rt.empty(x.shape, x.dtype)
    if x.size:
        _bpr_grad[grid(ids.size)](flat(x), ids, tuple(x.shape)[-1], flat(ins["Y@GRAD"]), flat(dx))
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
    return {"X@GRAD": _ts_grads(ins["X"], ins["Label"], ins["Y@GRAD"], float(attrs["soft_max_up_bound"]),
                                float(attrs["soft_max_lower_bound"]))}

