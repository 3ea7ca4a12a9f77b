"""CUDA twins of kernels/cpu/loss_classification.py. Row losses (softmax_with_cross_entropy,
soft-label cross_entropy) are block reductions along the last dim. A hard label outside
[0, classes) that is not ignore_index gives a NaN loss and gradient for its row (the CPU raises;
checking on the host would stall the device every step). The elementwise losses (label_smooth, kldiv_loss,
sigmoid_cross_entropy_with_logits, teacher_student_sigmoid_loss, ...) are in _loss_elementwise.py,
imported here by name."""

import math

import numpy as np
from numba import cuda

from . import runtime as rt
from ._host import host_ops, on_host_when
from ._launch import THREADS, flat, grid, per_dtype, rows_grid, zeros

# the elementwise losses, where the registry looks for this family's kernels
from ._loss_elementwise import (
    bce_loss as bce_loss,
    bce_loss_grad as bce_loss_grad,
    hinge_loss as hinge_loss,
    hinge_loss_grad as hinge_loss_grad,
    kldiv_loss as kldiv_loss,
    kldiv_loss_grad as kldiv_loss_grad,
    label_smooth as label_smooth,
    label_smooth_grad as label_smooth_grad,
    modified_huber_loss as modified_huber_loss,
    modified_huber_loss_grad as modified_huber_loss_grad,
    sigmoid_cross_entropy_with_logits as sigmoid_cross_entropy_with_logits,
    sigmoid_cross_entropy_with_logits_grad as sigmoid_cross_entropy_with_logits_grad,
    teacher_student_sigmoid_loss as teacher_student_sigmoid_loss,
    teacher_student_sigmoid_loss_grad as teacher_student_sigmoid_loss_grad,
)
from ._reduce import block_max, block_sum, reduce
from .launcher import jit_kernel
from ..context import NO_CONTEXT
from ...shapes.reduction import scalar_shape

HOST_OPS = host_ops("log_loss", "log_loss_grad")  # the CPU kernels on the host: no device twin yet
_APPROX_INF = 1e20  # Fluid's TolerableValue: log(0) is capped instead of being -inf


def _rows_of(x):
    n = x.shape[x.ndim - 1]
    return x.size // max(n, 1), n


# -- softmax_with_cross_entropy -----------------------------------------------------------------


def _swce_kernel(dt, soft):
    T = THREADS
    neg_inf = dt(-np.inf)
    zero = dt(0)
    nan = dt(np.nan)

    @jit_kernel
    def kernel(logits, label, softmax, loss, rows, n, ignore):
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):  # rows spread over the blocks
            base = r * n
            m = neg_inf
            for j in range(t, n, nt):
                m = max(m, logits[base + j])
            m = block_max(shared, m)
            s = zero
            for j in range(t, n, nt):
                s += math.exp(logits[base + j] - m)
            log_sum = math.log(block_sum(shared, s))
            acc = zero
            for j in range(t, n, nt):
                log_p = logits[base + j] - m - log_sum
                softmax[base + j] = math.exp(log_p)
                if soft:
                    acc += label[base + j] * log_p
            if soft:
                acc = block_sum(shared, acc)
                if t == 0:
                    loss[r] = -acc
            elif t == 0:
                k = label[r]
                if k == ignore:
                    loss[r] = zero
                elif k < 0 or k >= n:
                    loss[r] = nan
                else:
                    loss[r] = -(logits[base + k] - m - log_sum)

    return kernel


_swce = per_dtype(_swce_kernel)


def softmax_with_cross_entropy(ins, attrs):
    logits, label = ins["Logits"], ins["Label"]
    rows, n = _rows_of(logits)
    softmax = rt.empty(logits.shape, logits.dtype)
    loss = rt.empty(tuple(logits.shape[:-1]) + (1,), logits.dtype)
    if rows and n:
        soft = bool(attrs["soft_label"])
        _swce(logits.dtype, soft)[rows_grid(rows, n)](
            flat(logits), flat(label), flat(softmax), flat(loss), rows, n, attrs["ignore_index"]
        )
    return {"Softmax": softmax, "Loss": loss}


@jit_kernel
def _swce_grad_hard(softmax, label, dloss, dx, n, ignore):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dx.size:
        r = i // n
        k = label[r]
        if k == ignore:
            dx[i] = 0
        elif k < 0 or k >= n:
            dx[i] = math.nan
        else:
            g = softmax[i] - 1 if i % n == k else softmax[i]
            dx[i] = g * dloss[r]
        i += step


@jit_kernel
def _swce_grad_soft(softmax, label, dloss, dx, n):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dx.size:
        dx[i] = (softmax[i] - label[i]) * dloss[i // n]
        i += step


def softmax_with_cross_entropy_grad(ins, attrs):
    softmax, label, dloss = ins["Softmax"], ins["Label"], ins["Loss@GRAD"]
    dx = rt.empty(softmax.shape, softmax.dtype)
    n = softmax.shape[softmax.ndim - 1]
    if dx.size:
        if attrs["soft_label"]:
            _swce_grad_soft[grid(dx.size)](flat(softmax), flat(label), flat(dloss), flat(dx), n)
        else:
            _swce_grad_hard[grid(dx.size)](flat(softmax), flat(label), flat(dloss), flat(dx), n, attrs["ignore_index"])
    return {"Logits@GRAD": dx}


# -- cross_entropy --------------------------------------------------------------------------------


@cuda.jit(device=True, inline=True)
def _capped_log(v):
    if v <= 0:
        return -_APPROX_INF
    return min(max(math.log(v), -_APPROX_INF), _APPROX_INF)


@jit_kernel
def _ce_hard(x, label, y, match, n, ignore):  # match: cross_entropy2's MatchX, or y (then overwritten)
    r = cuda.grid(1)
    step = cuda.gridsize(1)
    while r < y.size:
        k = label[r]
        bad = k < 0 or k >= n
        match[r] = 0 if k == ignore else (math.nan if bad else x[r * n + k])
        y[r] = 0 if k == ignore else (math.nan if bad else -_capped_log(match[r]))
        r += step


def _ce_soft_kernel(dt):
    T = THREADS
    zero = dt(0)

    @jit_kernel
    def kernel(x, label, y, rows, n):
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        r = cuda.blockIdx.x
        while r < rows:
            acc = zero
            for j in range(t, n, nt):
                acc += label[r * n + j] * _capped_log(x[r * n + j])
            acc = block_sum(shared, acc)
            if t == 0:
                y[r] = -acc
            r += cuda.gridDim.x

    return kernel


_ce_soft = per_dtype(_ce_soft_kernel)


def cross_entropy(ins, attrs, match=None):
    x, label = ins["X"], ins["Label"]
    rows, n = _rows_of(x)
    y = rt.empty(tuple(x.shape[:-1]) + (1,), x.dtype)
    if rows and n:
        if attrs["soft_label"]:
            _ce_soft(x.dtype)[rows_grid(rows, n)](flat(x), flat(label), flat(y), rows, n)
        else:
            _ce_hard[grid(rows)](
                flat(x), flat(label), flat(y), flat(y if match is None else match), n, attrs["ignore_index"]
            )
    if not attrs["soft_label"] and label.ndim == x.ndim - 1:  # ids without the trailing 1: Y is Label's shape
        y = y.reshape(tuple(label.shape))
    return {"Y": y}


def cross_entropy2(ins, attrs):
    """cross_entropy of hard labels with Fluid's MatchX (X at each row's label, 0 where ignored) and XShape
    (X's shape and a trailing 0)."""
    x = ins["X"]
    match = rt.empty(tuple(x.shape[:-1]) + (1,), x.dtype)
    return {
        **cross_entropy(ins, dict(attrs, soft_label=False), match),
        "MatchX": match,
        "XShape": rt.empty(tuple(x.shape) + (0,), x.dtype),
    }


@jit_kernel
def _ce_grad_hard(x, label, dy, dx, n, ignore, picked):  # picked: X at the label (x's size: x[i], else MatchX[r])
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dx.size:
        r = i // n
        k = label[r]
        if k == ignore or i % n != k:
            dx[i] = 0
        elif k < 0 or k >= n:
            dx[i] = math.nan
        else:
            dx[i] = -dy[r] / (x[i] if picked else x[r])
        i += step


@jit_kernel
def _ce_grad_soft(x, label, dy, dx, n):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dx.size:
        dx[i] = -dy[i // n] * label[i] / x[i]
        i += step


def cross_entropy_grad(ins, attrs):
    x, label, dy = ins["X"], ins["Label"], ins["Y@GRAD"]
    dx = rt.empty(x.shape, x.dtype)
    n = x.shape[x.ndim - 1]
    if dx.size:
        if attrs["soft_label"]:
            _ce_grad_soft[grid(dx.size)](flat(x), flat(label), flat(dy), flat(dx), n)
        else:
            _ce_grad_hard[grid(dx.size)](flat(x), flat(label), flat(dy), flat(dx), n, attrs["ignore_index"], True)
    return {"X@GRAD": dx}


def cross_entropy_grad2(ins, attrs):
    """Fluid's: -Y@GRAD / MatchX at each row's label, X's shape from XShape (or from X, without them)."""
    if ins.get("MatchX") is None:
        return cross_entropy_grad(ins, dict(attrs, soft_label=False))
    match, shape = ins["MatchX"], tuple(ins["XShape"].shape[:-1])
    dx = rt.empty(shape, match.dtype)
    if dx.size:
        _ce_grad_hard[grid(dx.size)](
            flat(match), flat(ins["Label"]), flat(ins["Y@GRAD"]), flat(dx), shape[-1], attrs["ignore_index"], False
        )
    return {"X@GRAD": dx}


# -- nll_loss: one thread per position, then sums -------------------------------------------------


@jit_kernel
def _nll_terms(x, label, weight, has_weight, losses, ws, classes, inner, ignore):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < losses.size:
        c = label[i]
        if c == ignore:
            losses[i], ws[i] = 0, 0
        elif c < 0 or c >= classes:  # the CPU raises; here the loss is NaN
            losses[i], ws[i] = np.nan, np.nan
        else:
            w = weight[c] if has_weight else 1
            losses[i] = -x[((i // inner) * classes + c) * inner + i % inner] * w
            ws[i] = w
        i += step


@jit_kernel
def _nll_mean(out, total):
    if cuda.grid(1) == 0 and total[0] != 0:
        out[0] = out[0] / total[0]


@jit_kernel
def _nll_grad(label, weight, has_weight, dout, per_position, total, mean, dx, classes, inner, ignore):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < label.size:
        c = label[i]
        if c != ignore and 0 <= c < classes:
            g = -(dout[i] if per_position else dout[0]) * (weight[c] if has_weight else 1)
            dx[((i // inner) * classes + c) * inner + i % inner] = g / total[0] if mean else g
        i += step


def _nll_args(ins, attrs):
    x, label = ins["X"], ins["Label"]
    weight = ins.get("Weight")
    inner = x.size // max(x.shape[0] * x.shape[1], 1)
    return (flat(label), flat(weight if weight is not None else x), weight is not None), x.shape[1], inner


def nll_loss(ins, attrs, ctx=NO_CONTEXT):
    x, one = ins["X"], scalar_shape(ctx.zero_dim)  # ([1], or 0-D in a Paddle 2.x program)
    (label, weight, has_weight), classes, inner = _nll_args(ins, attrs)
    losses, ws = rt.empty((label.size,), x.dtype), rt.empty((label.size,), x.dtype)
    if label.size:
        _nll_terms[grid(label.size)](
            flat(x), label, weight, has_weight, losses, ws, classes, inner, attrs["ignore_index"]
        )
    if attrs["reduction"] == "none":
        return {"Out": losses.reshape(tuple(ins["Label"].shape)), "Total_weight": zeros(one, x.dtype)}
    out, total = reduce(losses, (0,), "sum").reshape(one), reduce(ws, (0,), "sum").reshape(one)
    if attrs["reduction"] == "mean":
        _nll_mean[1, 1, rt.stream()](out, total)
    return {"Out": out, "Total_weight": total}


def nll_loss_grad(ins, attrs):
    x = ins["X"]
    (label, weight, has_weight), classes, inner = _nll_args(ins, attrs)
    dx = zeros(tuple(x.shape), x.dtype)
    if label.size:
        _nll_grad[grid(label.size)](
            label,
            weight,
            has_weight,
            flat(ins["Out@GRAD"]),
            attrs["reduction"] == "none",
            flat(ins["Total_weight"]),
            attrs["reduction"] == "mean",
            flat(dx),
            classes,
            inner,
            attrs["ignore_index"],
        )
    return {"X@GRAD": dx}


def _probabilities(attrs):
    return not attrs.get("use_softmax", True)


# use_softmax=False (Paddle 2.x's: Logits hold probabilities): the CPU kernel on the host
HOST_OPS["softmax_with_cross_entropy"] = on_host_when(_probabilities, softmax_with_cross_entropy)
HOST_OPS["softmax_with_cross_entropy_grad"] = on_host_when(_probabilities, softmax_with_cross_entropy_grad)
