"""CUDA twins of kernels/cpu/nn.py.

conv2d is im2col + the tiled matmul (batched over groups), as on the CPU; its input gradient is the
transposed product followed by col2im written as a gather (each input element sums the columns
that read it: deterministic, no atomics). Pooling is direct: one thread per output (max-pool's
gradient scatters to each window's first maximum). batch_norm statistics and layer_norm are block
reductions, one block per channel / per row. dropout draws its mask on the host with the CPU's
generator, so both devices drop the same units. The device code of conv2d, pool2d and the norms is
in _conv.py, _pool.py and _norm.py; this module launches it.
"""
import numpy as np
from numba import cuda

from ...shapes import bn_channel_axis, layer_norm_split, lookup_out_shape
from ..common import ConvGeometry, PoolGeometry, table_ids
from ..cpu import nn as _cpu
from ..fused_math import both_grads, relu_first
from . import activation
from . import runtime as rt
from . import _conv, _norm, _pool
from . import adaptive_pool
from ._elementwise import scalar_arg
from ._launch import copy, flat, grid, rows_grid, zeros
from ._matmul import matmul
from .math import _scale_after_k
from ._reduce import reduce
from . import selected_rows as _sparse
from ...selected_rows import SelectedRows

# -- conv2d -----------------------------------------------------------------------------------------


def _geometry(x, w, attrs):
    return ConvGeometry(tuple(x.shape), tuple(w.shape), attrs)


def _conv2d(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    geo = _geometry(x, w, attrs)
    n, m = x.shape[0], w.shape[0]
    out = matmul(w.reshape((geo.groups, m // geo.groups, w.size // m)), _conv.columns(x, geo))   # [G, M/G, N*Ho*Wo]
    return {"Output": _conv.swap01(out.reshape((m, n, geo.ho, geo.wo)))}


def _conv2d_grad_filter(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _geometry(x, w, attrs)
    dw = matmul(_conv.dout_matrix(dout, geo), _conv.columns(x, geo), trans_b=True)          # [G, M/G, C/G*kh*kw]
    return {"Filter@GRAD": dw.reshape(tuple(w.shape))}


def _conv2d_grad_input(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _geometry(x, w, attrs)
    n, c, h, wd = x.shape
    m = w.shape[0]
    wmat = w.reshape((geo.groups, m // geo.groups, w.size // m))
    dcols = matmul(wmat, _conv.dout_matrix(dout, geo), trans_a=True)               # [G, C/G*kh*kw, N*Ho*Wo]
    dx = rt.empty(x.shape, x.dtype)
    _conv.col2im[grid(dx.size)](flat(dcols), flat(dx), c, h, wd, geo.kh, geo.kw, geo.sh, geo.sw, geo.dh, geo.dw,
                                geo.pads[0], geo.pads[2], n, geo.ho, geo.wo)
    return {"Input@GRAD": dx}


conv2d, conv2d_grad_input, conv2d_grad_filter = relu_first(activation, _conv2d, _conv2d_grad_input,
                                                            _conv2d_grad_filter)
conv2d_grad = both_grads(conv2d_grad_input, conv2d_grad_filter)


# -- pool2d -----------------------------------------------------------------------------------------

def _pool_args(x, attrs):
    geo = PoolGeometry(tuple(x.shape), attrs)
    h, w = x.shape[2], x.shape[3]
    return geo, (h, w, geo.ho, geo.wo, geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0], geo.pads[2])


def pool2d(ins, attrs):
    if attrs["adaptive"]:
        return adaptive_pool.pool2d(ins, attrs)
    x = ins["X"]
    geo, args = _pool_args(x, attrs)
    out = rt.empty((x.shape[0], x.shape[1], geo.ho, geo.wo), x.dtype)
    if out.size:
        _pool.pool[grid(out.size)](flat(x), flat(out), *args, attrs["pooling_type"] == "max", bool(attrs["exclusive"]))
    return {"Out": out}


def pool2d_grad(ins, attrs):
    if attrs["adaptive"]:
        return adaptive_pool.pool2d_grad(ins, attrs)
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    geo, args = _pool_args(x, attrs)
    if attrs["pooling_type"] == "max":
        dx = zeros(x.shape, x.dtype)
        if out.size:
            _pool.max_pool_grad[grid(out.size)](flat(x), flat(out), flat(dout), flat(dx), *args)
    else:
        dx = rt.empty(x.shape, x.dtype)
        if dx.size:
            _pool.avg_pool_grad[grid(dx.size)](flat(dout), flat(dx), *args, bool(attrs["exclusive"]))
    return {"X@GRAD": dx}


# -- batch_norm -------------------------------------------------------------------------------------

def _channel_layout(x, attrs):
    """(C, inner, count): channel c's elements are at (o * C + c) * inner + j, count per channel."""
    shape = tuple(x.shape)
    axis = bn_channel_axis(len(shape), attrs["data_layout"])
    c = shape[axis]
    inner = 1
    for d in shape[axis + 1:]:
        inner *= d
    return c, inner, x.size // max(c, 1)


def batch_norm(ins, attrs):
    x, scale, bias, mean, var = ins["X"], ins["Scale"], ins["Bias"], ins["Mean"], ins["Variance"]
    C, inner, count = _channel_layout(x, attrs)
    dt = x.dtype
    use_stats = attrs["is_test"] or attrs["use_global_stats"]
    if use_stats:
        m, v = copy(mean, dt), copy(var, dt)
        mean_out, var_out = mean, var
    else:
        m, v = rt.empty((C,), dt), rt.empty((C,), dt)
        _norm.channel_stats(dt)[rows_grid(C, count)](flat(x), m, v, C, inner, count)
        mean_out, var_out = rt.empty(mean.shape, mean.dtype), rt.empty(var.shape, var.dtype)
    a, shift, inv_std = rt.empty((C,), dt), rt.empty((C,), dt), rt.empty((C,), dt)
    _norm.bn_coefficients[grid(C)](m, v, flat(scale), flat(bias), flat(mean), flat(var), attrs["epsilon"],
                                   attrs["momentum"], not use_stats, a, shift, inv_std, flat(mean_out), flat(var_out))
    y = rt.empty(x.shape, dt)
    if y.size:
        _norm.per_channel_affine[grid(y.size)](flat(x), a, shift, flat(y), C, inner)
    return {"Y": y, "MeanOut": mean_out, "VarianceOut": var_out, "SavedMean": m, "SavedVariance": inv_std}


def _bn_grad(ins, attrs, with_x):
    x, scale, sm, inv_std, dy = ins["X"], ins["Scale"], ins["SavedMean"], ins["SavedVariance"], ins["Y@GRAD"]
    C, inner, count = _channel_layout(x, attrs)
    dbias, dscale = rt.empty((C,), x.dtype), rt.empty((C,), x.dtype)
    _norm.bn_grad_sums(x.dtype)[rows_grid(C, count)](flat(x), flat(dy), flat(sm), flat(inv_std), dbias, dscale,
                                                     C, inner, count)
    outs = {"Scale@GRAD": _as_dtype(dscale, scale.dtype), "Bias@GRAD": _as_dtype(dbias, scale.dtype)}
    if with_x:
        dx = rt.empty(x.shape, x.dtype)
        if dx.size:
            _norm.bn_dx[grid(dx.size)](flat(x), flat(dy), flat(sm), flat(inv_std), flat(scale), dbias, dscale,
                                       flat(dx), C, inner, count, bool(attrs["is_test"] or attrs["use_global_stats"]))
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
            flat(x), flat(scale if scale is not None else x), flat(bias if bias is not None else x),
            flat(y), mean, var, rows, n, attrs["epsilon"])
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
            flat(x), flat(scale if scale is not None else x), flat(mean), flat(var), flat(dy), flat(dx),
            rows, n, attrs["epsilon"])
    outs["X@GRAD"] = dx
    return outs


# -- dropout ----------------------------------------------------------------------------------------

@cuda.jit
def _masked(x, mask, factor, out):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        out[e] = x[e] * mask[e] * factor
        e += step


def _factor(attrs, dtype):
    p = attrs["dropout_prob"]
    up = attrs["dropout_implementation"] == "upscale_in_train" and p < 1.0
    return np.dtype(dtype).type(1.0 / (1.0 - p) if up else 1.0)


def dropout(ins, attrs):
    x = ins["X"]
    if attrs["is_test"]:
        p = attrs["dropout_prob"]
        upscale = attrs["dropout_implementation"] == "upscale_in_train"
        return {"Out": copy(x) if upscale else _scale_after_k(x, scalar_arg(x.dtype, 1.0 - p), scalar_arg(x.dtype, 0))}
    # The mask comes from the CPU kernel's generator: the same draws as on the CPU.
    host_mask = _cpu.dropout({"X": np.zeros(tuple(x.shape), dtype=np.float32)}, attrs)["Mask"]
    mask = rt.to_device(host_mask)
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _masked[grid(out.size)](flat(x), flat(mask), _factor(attrs, x.dtype), flat(out))
    return {"Out": out, "Mask": mask}


def dropout_grad(ins, attrs):
    mask, dout = ins["Mask"], ins["Out@GRAD"]
    dx = rt.empty(dout.shape, dout.dtype)
    if dx.size:
        _masked[grid(dx.size)](flat(dout), flat(mask), _factor(attrs, dout.dtype), flat(dx))
    return {"X@GRAD": dx}


# -- lookup_table -----------------------------------------------------------------------------------

def _checked_ids(ids, w, pad):
    """Ids as a flat int64 device array, checked on the host as the CPU kernel does."""
    table_ids(rt.to_host(ids), tuple(w.shape), pad)
    flat_ids = flat(ids)
    return flat_ids if flat_ids.dtype == np.int64 else copy(flat_ids, np.int64)


@cuda.jit
def _lookup(w, ids, out, width, pad):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        k = ids[e // width]
        out[e] = 0 if k == pad else w[k * width + e % width]
        e += step


@cuda.jit
def _lookup_grad(ids, dout, dw, width, pad):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dout.size:
        k = ids[e // width]
        if k != pad:
            cuda.atomic.add(dw, k * width + e % width, dout[e])
        e += step


def lookup_table(ins, attrs):
    w, ids = ins["W"], ins["Ids"]
    pad = attrs["padding_idx"]
    width = w.shape[1]
    idx = _checked_ids(ids, w, pad)
    out = rt.empty(tuple(lookup_out_shape(tuple(ids.shape), width)), w.dtype)
    if out.size:
        _lookup[grid(out.size)](flat(w), idx, flat(out), width, pad)
    return {"Out": out}


def lookup_table_v2(ins, attrs):
    out = lookup_table(ins, attrs)["Out"]
    return {"Out": out.reshape(tuple(ins["Ids"].shape) + (ins["W"].shape[1],))}


def lookup_table_grad(ins, attrs):
    w, ids, dout = ins["W"], ins["Ids"], ins["Out@GRAD"]
    pad = attrs["padding_idx"]
    width = w.shape[1]
    if attrs["is_sparse"]:      # the ids looked up (host; padding_idx left out) and their rows of Out@GRAD
        flat_ids = table_ids(rt.to_host(ids), tuple(w.shape), pad)
        keep = np.flatnonzero(flat_ids != pad)
        values = _sparse.gather_rows(dout.reshape((len(flat_ids), width)), keep)
        return {"W@GRAD": SelectedRows(flat_ids[keep], values, w.shape[0])}
    idx = _checked_ids(ids, w, pad)
    dw = zeros(w.shape, w.dtype)
    if dout.size:
        _lookup_grad[grid(dout.size)](idx, flat(dout), flat(dw), width, pad)
    return {"W@GRAD": dw}
