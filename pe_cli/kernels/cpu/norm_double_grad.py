"""Gradients of the normalization ops' gradients (pe_cli/ops/norm_double_grad.py): instance_norm_grad_grad
and batch_norm_grad_grad, as Fluid's and Paddle's. Per group of M values (instance norm: a sample's
channel; batch norm in training: a channel over the batch), with x^ = (X - mean) r (r = SavedVariance, Fluid's
1 / sqrt(var + epsilon)), g = Scale * DY and the group means written m(.): X@GRAD = r P(g), where
P(v) = v - m(v) - x^ m(v x^) (self-adjoint). Given DDX (the gradient reaching X@GRAD), DDScale and DDBias:

    DDY    = Scale r P(DDX) + DDScale x^ + DDBias
    DScale = sum over the samples of M r (m(DDX DY) - m(DY) m(DDX) - m(DY x^) m(DDX x^))
    DX     = -r^2 (x^ (m(DDX g) - m(g) m(DDX) - 3 m(g x^) m(DDX x^)) + m(DDX x^) (g - m(g))
                   + m(g x^) (DDX - m(DDX))) + DDScale r P(DY)

(DX is X's whole derivative, through the group's mean and r too). Batch norm with is_test or
use_global_stats is an affine map per channel (r and the mean constants): DDY = Scale r DDX + DDScale
x^ + DDBias, DX = DDScale r DY, DScale = sum(DDX r DY). Computed in float64. Structured kernels (meta rules:
shapes/norm_double_grad.py): the "numpy" variant's arrays handed over as the outputs (``fresh``); the kernels by name
are the rules and out-kernels through kernels/structured.adapter."""

import numpy as np

from ...shapes.norm_double_grad import batch_norm_grad_grad_meta, instance_norm_grad_grad_meta
from ..structured import adapter, fresh_kernel


def _groups(ins, slot, n, c, fill=None):
    v = ins.get(slot)
    if v is None:
        return fill
    return np.asarray(v, dtype=np.float64).reshape(n, c, -1)


def _channels(ins, slot, c):
    v = ins.get(slot)
    return None if v is None else np.asarray(v, dtype=np.float64).reshape(1, c, 1)


def _projected(v, xh):
    return v - v.mean(-1, keepdims=True) - xh * (v * xh).mean(-1, keepdims=True)


def _empty(x, c):
    """An empty X's: DX and DDY empty, DScale [C] a sum of nothing (its means over no values are NaN)."""
    return {"DX": np.zeros(x.shape, x.dtype), "DDY": np.zeros(x.shape, x.dtype), "DScale": np.zeros(c, x.dtype)}


def _instance_norm_grad_grad(ins, attrs):
    x = ins["X"]
    n, c = x.shape[:2]
    if x.size == 0:
        return _empty(x, c)
    grouped = {k: _groups(ins, k, n, c) for k in ("X", "DY", "SavedMean", "SavedVariance", "DDX")}
    dx, ddy, dscale = _grad_grad(
        grouped, _channels(ins, "Scale", c), _channels(ins, "DDScale", c), _channels(ins, "DDBias", c), False
    )
    dtype = x.dtype
    return {
        "DX": dx.reshape(x.shape).astype(dtype),
        "DDY": ddy.reshape(x.shape).astype(dtype),
        "DScale": dscale.astype(dtype),
    }


def _batch_norm_grad_grad(ins, attrs):
    """Each channel's values as one group ([1, C, M]: NCHW's [N, C, S] with N and S joined, NHWC's rows)."""
    x = ins["X"]
    c = ins["SavedVariance"].size
    if x.size == 0:
        return _empty(x, c)
    nchw = attrs["data_layout"] != "NHWC" and x.ndim > 2

    def grouped(v):
        v = np.asarray(v, dtype=np.float64)
        v = v.reshape(v.shape[0], c, -1).transpose(1, 0, 2) if nchw else v.reshape(-1, c).T
        return v.reshape(1, c, -1)

    def back(v):
        if not nchw:
            return v.reshape(c, -1).T.reshape(x.shape).astype(x.dtype)
        return v.reshape(c, x.shape[0], -1).transpose(1, 0, 2).reshape(x.shape).astype(x.dtype)

    groups = {k: np.asarray(ins[k], np.float64).reshape(1, c, 1) for k in ("SavedMean", "SavedVariance")}
    groups.update(
        X=grouped(ins["X"]), DY=grouped(ins["DY"]), DDX=None if ins.get("DDX") is None else grouped(ins["DDX"])
    )
    dx, ddy, dscale = _grad_grad(
        groups,
        _channels(ins, "Scale", c),
        _channels(ins, "DDScale", c),
        _channels(ins, "DDBias", c),
        attrs["is_test"] or attrs["use_global_stats"],
    )
    return {"DX": back(dx), "DDY": back(ddy), "DScale": dscale.astype(x.dtype)}


def _grad_grad(groups, scale, dds, ddb, affine):
    """DX, DDY and DScale of the module's formulas on [n, C, M] groups (``affine``: constant statistics)."""
    xs, dy, mean, r = groups["X"], groups["DY"], groups["SavedMean"], groups["SavedVariance"]
    xh = (xs - mean) * r
    scale = np.ones((1, xs.shape[1], 1)) if scale is None else scale
    a = np.zeros_like(xs) if groups["DDX"] is None else groups["DDX"]
    if affine:
        ddy, dx = scale * r * a, np.zeros_like(xs)
        dscale = (a * r * dy).sum(axis=(0, 2))
        if dds is not None:
            dx = dds * r * dy
    else:
        g = scale * dy
        mg, ma, mgx, max_ = (
            g.mean(-1, keepdims=True),
            a.mean(-1, keepdims=True),
            (g * xh).mean(-1, keepdims=True),
            (a * xh).mean(-1, keepdims=True),
        )
        ddy = scale * r * _projected(a, xh)
        dx = (
            -r
            * r
            * (xh * ((a * g).mean(-1, keepdims=True) - mg * ma - 3 * mgx * max_) + max_ * (g - mg) + mgx * (a - ma))
        )
        if dds is not None:
            dx = dx + dds * r * _projected(dy, xh)
        m = xs.shape[-1]
        dscale = (
            m
            * r
            * (
                (a * dy).mean(-1, keepdims=True)
                - dy.mean(-1, keepdims=True) * ma
                - (dy * xh).mean(-1, keepdims=True) * max_
            )
        ).sum(axis=(0, 2))
    if dds is not None:
        ddy = ddy + dds * xh
    if ddb is not None:
        ddy = ddy + ddb
    return dx, ddy, dscale


INSTANCE_NORM_GRAD_GRAD = fresh_kernel(_instance_norm_grad_grad, "instance_norm_grad_grad_numpy")
BATCH_NORM_GRAD_GRAD = fresh_kernel(_batch_norm_grad_grad, "batch_norm_grad_grad_numpy")
instance_norm_grad_grad = adapter(instance_norm_grad_grad_meta, INSTANCE_NORM_GRAD_GRAD, "instance_norm_grad_grad")
batch_norm_grad_grad = adapter(batch_norm_grad_grad_meta, BATCH_NORM_GRAD_GRAD, "batch_norm_grad_grad")
