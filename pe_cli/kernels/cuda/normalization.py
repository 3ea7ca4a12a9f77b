"""CUDA twins of kernels/cpu/normalization.py. batch_norm statistics and layer_norm are block
reductions, one block per channel / per row. instance_norm and group_norm run layer_norm's row
kernels on X's rows ([N*C, H*W], [N*G, C/G*H*W]) and batch_norm's per-channel affine. The device
code of those is in _norm.py; this module launches it. affine_channel and lrn are one thread per
element (reductions for affine_channel's parameter gradients), norm one thread per line along its
axis."""

import math

import numpy as np
from numba import cuda

from ...shapes.normalization import (
    bn_channel_axis,
    channel_view,
    layer_norm_split,
    lrn_view,
    norm_layout,
    running_stats,
)
from ..cpu import normalization as _cpu
from . import _norm, runtime as rt
from ._elementwise import Binary
from ._host import on_host
from ._launch import copy, flat, full, grid, rows_grid, zeros
from ._reduce import reduce
from .launcher import jit_kernel


# -- batch_norm -------------------------------------------------------------------------------------


def _channel_layout(x, attrs):
    """(C, inner, count): channel c's elements are at (o * C + c) * inner + j, count per channel."""
    shape = tuple(x.shape)
    axis = bn_channel_axis(len(shape), attrs["data_layout"])
    c = shape[axis]
    inner = 1
    for d in shape[axis + 1 :]:
        inner *= d
    return c, inner, x.size // max(c, 1)


def batch_norm(ins, attrs):
    x, scale, bias, mean, var = ins["X"], ins["Scale"], ins["Bias"], ins["Mean"], ins["Variance"]
    C, inner, count = _channel_layout(x, attrs)
    dt = x.dtype
    use_stats = running_stats(attrs)
    if use_stats:
        m, v = copy(mean, dt), copy(var, dt)
        mean_out, var_out = mean, var
    else:
        m, v = rt.empty((C,), dt), rt.empty((C,), dt)
        _norm.channel_stats(dt)[rows_grid(C, count)](flat(x), m, v, C, inner, count)
        mean_out, var_out = rt.empty(mean.shape, mean.dtype), rt.empty(var.shape, var.dtype)
    a, shift, inv_std = rt.empty((C,), dt), rt.empty((C,), dt), rt.empty((C,), dt)
    _norm.bn_coefficients[grid(C)](
        m,
        v,
        flat(scale),
        flat(bias),
        flat(mean),
        flat(var),
        attrs["epsilon"],
        attrs["momentum"],
        not use_stats,
        a,
        shift,
        inv_std,
        flat(mean_out),
        flat(var_out),
    )
    y = rt.empty(x.shape, dt)
    if y.size:
        _norm.per_channel_affine[grid(y.size)](flat(x), a, shift, flat(y), C, inner)
    return {"Y": y, "MeanOut": mean_out, "VarianceOut": var_out, "SavedMean": m, "SavedVariance": inv_std}


def _bn_grad(ins, attrs, with_x):
    x, scale, sm, inv_std, dy = ins["X"], ins["Scale"], ins["SavedMean"], ins["SavedVariance"], ins["Y@GRAD"]
    C, inner, count = _channel_layout(x, attrs)
    dbias, dscale = rt.empty((C,), x.dtype), rt.empty((C,), x.dtype)
    _norm.bn_grad_sums(x.dtype)[rows_grid(C, count)](
        flat(x), flat(dy), flat(sm), flat(inv_std), dbias, dscale, C, inner, count
    )
    outs = {"Scale@GRAD": _as_dtype(dscale, scale.dtype), "Bias@GRAD": _as_dtype(dbias, scale.dtype)}
    if with_x:
        dx = rt.empty(x.shape, x.dtype)
        if dx.size:
            _norm.bn_dx[grid(dx.size)](
                flat(x),
                flat(dy),
                flat(sm),
                flat(inv_std),
                flat(scale),
                dbias,
                dscale,
                flat(dx),
                C,
                inner,
                count,
                running_stats(attrs),
            )
        outs["X@GRAD"] = dx
    return outs


def _as_dtype(a, dtype):
    return a if a.dtype == np.dtype(dtype) else copy(a, dtype)


def batch_norm_grad(ins, attrs):
    return _bn_grad(ins, attrs, True)


def batch_norm_grad_param(ins, attrs):
    return _bn_grad(ins, attrs, False)


# -- layer_norm -------------------------------------------------------------------------------------


def _ln_shape(x, attrs):
    return layer_norm_split(tuple(x.shape), attrs["begin_norm_axis"])


def layer_norm(ins, attrs):
    x = ins["X"]
    rows, n = _ln_shape(x, attrs)
    dt = x.dtype
    y, mean, var = rt.empty(x.shape, dt), rt.empty((rows,), dt), rt.empty((rows,), dt)
    scale, bias = ins.get("Scale"), ins.get("Bias")
    if y.size:
        _norm.layer_norm(dt, scale is not None, bias is not None)[rows_grid(rows, n)](
            flat(x),
            flat(scale if scale is not None else x),
            flat(bias if bias is not None else x),
            flat(y),
            mean,
            var,
            rows,
            n,
            attrs["epsilon"],
        )
    return {"Y": y, "Mean": mean, "Variance": var}


def layer_norm_grad(ins, attrs):
    x, mean, var, dy = ins["X"], ins["Mean"], ins["Variance"], ins["Y@GRAD"]
    rows, n = _ln_shape(x, attrs)
    scale = ins.get("Scale")
    dy2 = dy.reshape((rows, n))
    outs = {"Bias@GRAD": reduce(dy2, (0,), "sum")}
    if scale is not None:
        prod = rt.empty((rows, n), x.dtype)
        if prod.size:
            _norm.dy_xhat[grid(prod.size)](flat(x), flat(mean), flat(var), flat(dy), flat(prod), n, attrs["epsilon"])
        outs["Scale@GRAD"] = reduce(prod, (0,), "sum")
    dx = rt.empty(x.shape, x.dtype)
    if dx.size:
        _norm.layer_norm_dx(x.dtype, scale is not None)[rows_grid(rows, n)](
            flat(x),
            flat(scale if scale is not None else x),
            flat(mean),
            flat(var),
            flat(dy),
            flat(dx),
            rows,
            n,
            attrs["epsilon"],
        )
    outs["X@GRAD"] = dx
    return outs


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


# -- lrn ----------------------------------------------------------------------------------------------


@jit_kernel
def _lrn(x, out, mid, c, post, n, pre_pad, k, alpha, beta):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < x.size:
        ch = (i // post) % c
        base = i - ch * post
        s = k
        for j in range(n):
            src = ch - pre_pad + j
            if 0 <= src < c:
                v = x[base + src * post]
                s += alpha * v * v
        mid[i] = s
        out[i] = x[i] * math.pow(s, -beta)
        i += step


@jit_kernel
def _lrn_grad(x, out, mid, dout, dx, c, post, n, pre_pad, alpha, beta):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < x.size:
        ch = (i // post) % c
        base = i - ch * post
        acc = 0.0
        for j in range(n):
            dst = ch + pre_pad - j  # the channel whose window holds ch at its j-th place
            if 0 <= dst < c:
                o = base + dst * post
                acc += dout[o] * out[o] / mid[o]
        dx[i] = dout[i] * math.pow(mid[i], -beta) - 2 * alpha * beta * x[i] * acc
        i += step


def lrn(ins, attrs):
    x = ins["X"]
    _, c, post = lrn_view(x, attrs)
    out, mid = rt.empty(x.shape, x.dtype), rt.empty(x.shape, x.dtype)
    if x.size:
        _lrn[grid(x.size)](
            flat(x),
            flat(out),
            flat(mid),
            c,
            post,
            attrs["n"],
            (attrs["n"] - 1) // 2,
            float(attrs["k"]),
            float(attrs["alpha"]),
            float(attrs["beta"]),
        )
    return {"Out": out, "MidOut": mid}


def lrn_grad(ins, attrs):
    x = ins["X"]
    _, c, post = lrn_view(x, attrs)
    dx = rt.empty(x.shape, x.dtype)
    if x.size:
        _lrn_grad[grid(x.size)](
            flat(x),
            flat(ins["Out"]),
            flat(ins["MidOut"]),
            flat(ins["Out@GRAD"]),
            flat(dx),
            c,
            post,
            attrs["n"],
            (attrs["n"] - 1) // 2,
            float(attrs["alpha"]),
            float(attrs["beta"]),
        )
    return {"X@GRAD": dx}


# -- affine_channel -------------------------------------------------------------------------------


@jit_kernel
def _affine(x, scale, bias, out, c, post):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        k = (i // post) % c
        out[i] = x[i] * scale[k] + bias[k]
        i += step


@cuda.jit(device=True, inline=True)
def _times(a, b, p, q):
    return a * b


_product = Binary(_times)


def affine_channel(ins, attrs):
    x = ins["X"]
    _, c, post = channel_view(x, attrs)
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _affine[grid(out.size)](flat(x), ins["Scale"], ins["Bias"], flat(out), c, post)
    return {"Out": out}


def affine_channel_grad(ins, attrs):
    x, scale, dout = ins["X"], ins["Scale"], ins["Out@GRAD"]
    view = channel_view(x, attrs)
    dx = rt.empty(x.shape, x.dtype)
    if dx.size:
        _affine[grid(dx.size)](flat(dout), scale, zeros(scale.shape, scale.dtype), flat(dx), view[1], view[2])
    d3 = dout.reshape(view)
    return {
        "X@GRAD": dx,
        "Scale@GRAD": reduce(_product(d3, x.reshape(view)), (0, 2), "sum"),
        "Bias@GRAD": reduce(d3, (0, 2), "sum"),
    }


# -- norm (l2_normalize) ------------------------------------------------------------------------------


def _lines(shape, axis):
    """(n, post, lines): X seen as [pre, n, post] around ``axis``; one line per (pre, post)."""
    n = shape[axis]
    post = int(np.prod(shape[axis + 1 :], dtype=np.int64))
    return n, post, (int(np.prod(shape, dtype=np.int64)) // n if n else 0)


@jit_kernel
def _l2_norm(x, out, nrm, n, post, lines, eps):
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


@jit_kernel
def _l2_norm_grad(x, nrm, dout, dx, n, post, lines):
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
        _l2_norm[grid(lines)](flat(x), flat(out), flat(nrm), n, post, lines, float(attrs["epsilon"]))
    return {"Out": out, "Norm": nrm}


def norm_grad(ins, attrs):
    x, nrm, dout = ins["X"], ins["Norm"], ins["Out@GRAD"]
    n, post, lines = _lines(tuple(x.shape), attrs["axis"] % x.ndim)
    dx = rt.empty(x.shape, x.dtype)
    if lines:
        _l2_norm_grad[grid(lines)](flat(x), flat(nrm), flat(dout), flat(dx), n, post, lines)
    return {"X@GRAD": dx}


# data_norm: the CPU kernels on the host (a device twin is not written yet)
data_norm = on_host(_cpu.data_norm)
data_norm_grad = on_host(_cpu.data_norm_grad)
