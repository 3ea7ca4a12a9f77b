"""CUDA twins of kernels/cpu/norm_extra.py: prelu is one elementwise kernel (its alpha gradient a
reduction of x * dout where x <= 0). instance_norm and group_norm run layer_norm's row kernels
(_norm.py) on X's rows ([N*C, H*W], [N*G, C/G*H*W]) and batch_norm's per-channel affine."""
import math

from numba import cuda

from ..cpu.norm_extra import norm_layout
from . import _norm
from . import runtime as rt
from ._launch import flat, full, grid, rows_grid
from ._reduce import reduce


def _alpha_index(x_shape, mode):
    """(div, mod): element e of X uses alpha[(e // div) % mod]."""
    inner = 1
    for d in x_shape[2:]:
        inner *= d
    if mode == "all":
        return 1, 1
    if mode == "channel":
        return inner, x_shape[1]
    return 1, inner * x_shape[1]


@cuda.jit
def _prelu(x, alpha, out, div, mod):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        v = x[e]
        out[e] = v if v > 0 else alpha[(e // div) % mod] * v
        e += step


@cuda.jit
def _prelu_grad(x, alpha, dout, dx, neg, div, mod):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dx.size:
        v = x[e]
        if v > 0:
            dx[e] = dout[e]
            neg[e] = 0
        else:
            dx[e] = alpha[(e // div) % mod] * dout[e]
            neg[e] = v * dout[e]
        e += step


def prelu(ins, attrs):
    x = ins["X"]
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _prelu[grid(out.size)](flat(x), flat(ins["Alpha"]), flat(out), *_alpha_index(x.shape, attrs["mode"]))
    return {"Out": out}


def prelu_grad(ins, attrs):
    x, alpha = ins["X"], ins["Alpha"]
    div, mod = _alpha_index(x.shape, attrs["mode"])
    dx, neg = rt.empty(x.shape, x.dtype), rt.empty(x.shape, x.dtype)
    if dx.size:
        _prelu_grad[grid(dx.size)](flat(x), flat(alpha), flat(ins["Out@GRAD"]), flat(dx), flat(neg), div, mod)
    if attrs["mode"] == "channel":
        dalpha = reduce(neg.reshape((x.shape[0], x.shape[1], div)), (0, 2), "sum")
    else:
        dalpha = reduce(neg.reshape((x.shape[0], x.size // max(x.shape[0], 1))), (0,), "sum")
        if attrs["mode"] == "all":
            dalpha = reduce(dalpha, (0,), "sum")
    return {"X@GRAD": dx, "Alpha@GRAD": dalpha.reshape(tuple(alpha.shape))}


# -- instance_norm, group_norm ------------------------------------------------------------------------

@cuda.jit
def _inv_std(var, out, eps):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        out[e] = 1.0 / math.sqrt(var[e] + eps)
        e += step


@cuda.jit
def _var_of(inv, out, eps):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        out[e] = 1.0 / (inv[e] * inv[e]) - eps
        e += step


def _channel_or(ins, slot, c, value, dtype):
    return ins[slot] if slot in ins else full((c,), value, dtype)


def _forward(ins, eps, layout):
    x = ins["X"]
    rows, n, c, inner = layout
    dt = x.dtype
    y, mean, var = rt.empty(x.shape, dt), rt.empty((rows,), dt), rt.empty((rows,), dt)
    if y.size:
        _norm.layer_norm(dt, False, False)[rows_grid(rows, n)](flat(x), flat(x), flat(x), flat(y), mean, var,
                                                               rows, n, eps)
        if "Scale" in ins or "Bias" in ins:
            _norm.per_channel_affine[grid(y.size)](flat(y), _channel_or(ins, "Scale", c, 1, dt),
                                                   _channel_or(ins, "Bias", c, 0, dt), flat(y), c, inner)
    return y, mean, var


def _backward(ins, mean, var, eps, layout):
    x, dy = ins["X"], ins["Y@GRAD"]
    rows, n, c, inner = layout
    dt = x.dtype
    three = (x.shape[0], c, inner)
    outs = {"Bias@GRAD": reduce(dy.reshape(three), (0, 2), "sum")}
    prod, g, dx = rt.empty(three, dt), rt.empty(three, dt), rt.empty(x.shape, dt)
    if prod.size:
        _norm.dy_xhat[grid(prod.size)](flat(x), mean, var, flat(dy), flat(prod), n, eps)
    outs["Scale@GRAD"] = reduce(prod, (0, 2), "sum")
    if "Scale" in ins and g.size:
        _norm.per_channel_affine[grid(g.size)](flat(dy), ins["Scale"], full((c,), 0, dt), flat(g), c, inner)
    else:
        g = dy
    if dx.size:
        _norm.layer_norm_dx(dt, False)[rows_grid(rows, n)](flat(x), flat(x), mean, var, flat(g), flat(dx), rows, n,
                                                           eps)
    outs["X@GRAD"] = dx
    return outs


def instance_norm(ins, attrs):
    y, mean, var = _forward(ins, attrs["epsilon"], norm_layout(tuple(ins["X"].shape)))
    inv = rt.empty(var.shape, var.dtype)
    if inv.size:
        _inv_std[grid(inv.size)](var, inv, attrs["epsilon"])
    return {"Y": y, "SavedMean": mean, "SavedVariance": inv}


def instance_norm_grad(ins, attrs):
    inv = ins["SavedVariance"]
    var = rt.empty(inv.shape, inv.dtype)
    if var.size:
        _var_of[grid(var.size)](inv, var, attrs["epsilon"])
    return _backward(ins, ins["SavedMean"], var, attrs["epsilon"], norm_layout(tuple(ins["X"].shape)))


def group_norm(ins, attrs):
    x, g = ins["X"], attrs["groups"]
    y, mean, var = _forward(ins, attrs["epsilon"], norm_layout(tuple(x.shape), g))
    return {"Y": y, "Mean": mean.reshape((x.shape[0], g)), "Variance": var.reshape((x.shape[0], g))}


def group_norm_grad(ins, attrs):
    x, g = ins["X"], attrs["groups"]
    rows = x.shape[0] * g
    return _backward(ins, ins["Mean"].reshape((rows,)), ins["Variance"].reshape((rows,)), attrs["epsilon"],
                     norm_layout(tuple(x.shape), g))
