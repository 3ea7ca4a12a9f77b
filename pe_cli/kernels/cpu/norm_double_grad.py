"""Gradients of the normalization ops' gradients (pe_cli/ops/normalization.py): instance_norm_grad_grad,
as Fluid's. Per (sample, channel) group of M values, with x^ = (X - mean) r (r = SavedVariance, Fluid's
1 / sqrt(var + epsilon)), g = Scale * DY and the group means written m(.): X@GRAD = r P(g), where
P(v) = v - m(v) - x^ m(v x^) (self-adjoint). Given DDX (the gradient reaching X@GRAD), DDScale and DDBias:

    DDY    = Scale r P(DDX) + DDScale x^ + DDBias
    DScale = sum over the samples of M r (m(DDX DY) - m(DY) m(DDX) - m(DY x^) m(DDX x^))
    DX     = -r^2 (x^ (m(DDX g) - m(g) m(DDX) - 3 m(g x^) m(DDX x^)) + m(DDX x^) (g - m(g))
                   + m(g x^) (DDX - m(DDX))) + DDScale r P(DY)

(DX is X's whole derivative, through the group's mean and r too). Computed in float64."""
import numpy as np


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


def instance_norm_grad_grad(ins, attrs):
    x = ins["X"]
    n, c = x.shape[:2]
    xs, dy = _groups(ins, "X", n, c), _groups(ins, "DY", n, c)
    mean, r = _groups(ins, "SavedMean", n, c), _groups(ins, "SavedVariance", n, c)
    xh = (xs - mean) * r
    scale = _channels(ins, "Scale", c)
    scale = np.ones((1, c, 1)) if scale is None else scale
    dds, ddb = _channels(ins, "DDScale", c), _channels(ins, "DDBias", c)
    a = _groups(ins, "DDX", n, c, np.zeros_like(xs))
    g = scale * dy
    mg, ma, mgx, max_ = g.mean(-1, keepdims=True), a.mean(-1, keepdims=True), \
        (g * xh).mean(-1, keepdims=True), (a * xh).mean(-1, keepdims=True)
    ddy = scale * r * _projected(a, xh)
    dx = -r * r * (xh * ((a * g).mean(-1, keepdims=True) - mg * ma - 3 * mgx * max_) + max_ * (g - mg) + mgx * (a - ma))
    if dds is not None:
        ddy = ddy + dds * xh
        dx = dx + dds * r * _projected(dy, xh)
    if ddb is not None:
        ddy = ddy + ddb
    m = xs.shape[-1]
    dscale = (m * r * ((a * dy).mean(-1, keepdims=True) - dy.mean(-1, keepdims=True) * ma
                       - (dy * xh).mean(-1, keepdims=True) * max_)).sum(axis=(0, 2))
    dtype = x.dtype
    return {"DX": dx.reshape(x.shape).astype(dtype), "DDY": ddy.reshape(x.shape).astype(dtype),
            "DScale": dscale.astype(dtype)}
