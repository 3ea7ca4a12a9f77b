"""CUDA twins of kernels/cpu/normalization.py. batch_norm statistics and layer_norm are block
reductions, one block per channel / per row; instance_norm and group_norm (normalization_groups.py)
run layer_norm's row kernels on X's rows. The device code of those is in _norm.py; this module launches
it. affine_channel and lrn are one thread per element (reductions for affine_channel's parameter
gradients), norm one thread per line along its axis."""

import math

import numpy as np
from numba import cuda

from ...shapes.normalization import (
    bn_channel_axis,
    channel_view,
    layer_norm_meta,
    layer_norm_split,
    lrn_view,
    running_stats,
)
from . import _norm, runtime as rt
from ._elementwise import Binary
from ._host import host_ops
from ._launch import copy, flat, grid, rows_grid, zeros
from ._reduce import reduce
from .launcher import jit_kernel
from .normalization_groups import group_norm, group_norm_grad, instance_norm, instance_norm_grad  # noqa: F401 (found here by the registry)


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
    rows, n = layer_norm_meta(attrs, ins, None).args  # (its refusals: X's and Scale's, Bias's shapes)
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
HOST_OPS = host_ops("data_norm", "data_norm_grad")
