"""CUDA twins of kernels/cpu/loss_ranking.py: elementwise launches for margin_rank_loss and rank_loss,
one thread per row for bpr_loss (its labels checked on the host by the CPU's ``bpr_ids``)."""

import math

from numba import cuda

from . import runtime as rt
from ._elementwise import Binary, Ternary
from ._launch import flat, grid
from ._loss_elementwise import divide
from .launcher import jit_kernel
from ..value_checks import bpr_ids


# -- margin_rank_loss, rank_loss ----------------------------------------------------------------------


@jit_kernel
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
        _margin_rank[grid(out.size)](
            flat(x1), flat(ins["X2"]), flat(ins["Label"]), float(attrs["margin"]), flat(out), flat(act)
        )
    return {"Out": out, "Activated": act}


def margin_rank_loss_grad(ins, attrs):
    g = _margin_grads(ins["Label"], ins["Activated"], ins["Out@GRAD"])
    return {"X1@GRAD": divide(g, -1.0), "X2@GRAD": g}


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
    """Label, Left and Right are each [N] or [N, 1]: computed flat, Out shaped as Label."""
    out = _rank_losses(flat(ins["Label"]), flat(ins["Left"]), flat(ins["Right"]))
    return {"Out": out.reshape(tuple(ins["Label"].shape))}


def rank_loss_grad(ins, attrs):
    g = _rank_grads(flat(ins["Label"]), _diff(flat(ins["Left"]), flat(ins["Right"])), flat(ins["Out@GRAD"]))
    return {
        "Left@GRAD": g.reshape(tuple(ins["Left"].shape)),
        "Right@GRAD": divide(g, -1.0).reshape(tuple(ins["Right"].shape)),
    }


# -- bpr_loss ---------------------------------------------------------------------------------------


@jit_kernel
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


@jit_kernel
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
    ids = bpr_ids(tuple(ins["X"].shape), rt.to_host(ins["Label"]))
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
