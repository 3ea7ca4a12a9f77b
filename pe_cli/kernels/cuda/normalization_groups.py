"""CUDA twins of kernels/cpu/normalization_groups.py: instance_norm and group_norm run layer_norm's row
kernels on X's rows ([N*C, H*W], [N*G, C/G*H*W]) and batch_norm's per-channel affine (the device code in
_norm.py). normalization.py, where the registry looks for them, imports them."""

import math

from numba import cuda

from ...shapes.normalization import norm_layout
from . import _norm
from . import runtime as rt
from ._launch import flat, full, grid, rows_grid
from ._reduce import reduce
from .launcher import jit_kernel


# -- instance_norm, group_norm ------------------------------------------------------------------------


@jit_kernel
def _inv_std(var, out, eps):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        out[e] = 1.0 / math.sqrt(var[e] + eps)
        e += step


@jit_kernel
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
        _norm.layer_norm(dt, False, False)[rows_grid(rows, n)](
            flat(x), flat(x), flat(x), flat(y), mean, var, rows, n, eps
        )
        if "Scale" in ins or "Bias" in ins:
            _norm.per_channel_affine[grid(y.size)](
                flat(y), _channel_or(ins, "Scale", c, 1, dt), _channel_or(ins, "Bias", c, 0, dt), flat(y), c, inner
            )
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
        _norm.layer_norm_dx(dt, False)[rows_grid(rows, n)](flat(x), flat(x), mean, var, flat(g), flat(dx), rows, n, eps)
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
    return _backward(
        ins,
        ins["Mean"].reshape((rows,)),
        ins["Variance"].reshape((rows,)),
        attrs["epsilon"],
        norm_layout(tuple(x.shape), g),
    )
