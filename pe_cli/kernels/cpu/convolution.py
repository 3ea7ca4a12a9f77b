"""CPU kernels of the nn ops.

float32 conv2d and its gradients run on oneDNN's direct convolutions where the ``onednn`` extra is
installed (_onednn.py; ``PE_ONEDNN=0`` turns it off); elsewhere, and for float64, on pe's own paths:

float32/float64 (the types the numba loops are compiled for, _nn_loops.py):
conv2d is im2col + GEMM per sample, in one numba loop over the samples: each sample's columns
[C*kh*kw, Ho*Wo] are built in a per-thread buffer (small enough to stay in L2) and multiplied by
the filter with numpy's BLAS called from the loop (_cblas.py), straight into the NCHW output. The
filter gradient accumulates Output@GRAD x columns^T per thread, the input gradient is
filter^T x Output@GRAD then col2im, per sample. When the device has several cores the samples are
spread over numba's threads (the loops' ``*_parallel`` twins; pe_cli/kernels/cpu/threads.py). A 1x1 stride-1
unpadded filter uses the input itself as its columns; a 3x3 stride-1 filter between 8 or more
channels, with 64 or more 2x2 output tiles a sample, takes Winograd's F(2x2, 3x3) instead (_winograd.py:
2.25x fewer multiply-adds, no im2col); any other stride-1 filter without dilation takes the wide
columns (_wide_loops.py: each row of columns one run of the padded plane, the GEMM over Ho x
(Wo + kw - 1) positions, where im2col copies Wo elements at a time). Where numpy's BLAS cannot be called from numba, the columns
of the whole batch are built by a numba loop and multiplied by one batched ``numpy.matmul``.
Pooling (max, avg; paddings, ceil_mode) is a numba loop over the windows.

Other dtypes take the vectorised numpy path: im2col as one strided copy of the padded input into
[groups, C/groups*kh*kw, N*Ho*Wo] and one GEMM, col2im as kh*kw strided adds, pooling as a loop
over kernel or output positions (whichever is fewer) vectorised over the batch and channels.
Their helpers are in _conv.py and _pool.py; the geometry, shared with the CUDA twins, in
kernels/common.py.
"""
import numpy as np

from ..fused_math import both_grads, relu_first
from . import activation, threads
from . import _cblas, _conv, _onednn, _pool, _replicas, _winograd
from . import adaptive_pool
from ...shapes import bn_channel_axis, layer_norm_split, lookup_out_shape
from ...selected_rows import SelectedRows
from ..common import ConvGeometry, PoolGeometry, table_ids
from ._numba import is_float, lazy, parallel_parts, twin

_loops = lazy("_nn_loops")
_pool_loops = lazy("_pool_loops")
_norm_loops = lazy("_norm_loops")


# -- conv2d -----------------------------------------------------------------------------------------

def _conv2d(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    geo = ConvGeometry(x.shape, w.shape, attrs)
    if _onednn.applies(x, w) and (out := _onednn.conv2d(x, w, geo)) is not None:
        return {"Output": out}
    if is_float(x, w):
        gemm = _cblas.gemm(x.dtype)
        if gemm is not None:
            x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
            if _winograd.applies(geo, x.shape, w.shape):
                return {"Output": _winograd.conv2d(gemm, x, w, geo)}
            out = np.empty((x.shape[0], w.shape[0], geo.ho, geo.wo), dtype=x.dtype)
            _conv.per_sample("forward", gemm, x, w, out, geo, x, w.shape[0])
            return {"Output": out}
        threads.for_gemm(geo.gemm_macs(w.shape))
        cols = _conv.cols(x, geo)                                                 # [N, G, K/G, L]
        out = np.matmul(w.reshape(geo.groups, w.shape[0] // geo.groups, -1), cols)    # [N, G, M/G, L]
        return {"Output": out.reshape(x.shape[0], w.shape[0], geo.ho, geo.wo)}
    n, m = x.shape[0], w.shape[0]
    cols = _conv.im2col(x, geo)
    out = np.matmul(w.reshape(geo.groups, m // geo.groups, -1), cols)     # [G, M/G, N*Ho*Wo]
    out = out.reshape(m, n, geo.ho, geo.wo).transpose(1, 0, 2, 3)
    return {"Output": np.ascontiguousarray(out, dtype=x.dtype)}


def _conv2d_grad_filter(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = ConvGeometry(x.shape, w.shape, attrs)
    if _onednn.applies(x, w, dout) and (dw := _onednn.grad_filter(x, dout, geo, w.shape)) is not None:
        return {"Filter@GRAD": dw}
    if is_float(x, w, dout):
        gemm = _cblas.gemm(x.dtype)
        if gemm is not None:
            x, dout = np.ascontiguousarray(x), np.ascontiguousarray(dout)
            if _winograd.applies(geo, x.shape, w.shape):
                return {"Filter@GRAD": _winograd.grad_filter(gemm, x, dout, geo, w.shape)}
            # one sum per fixed run of samples, whatever the threads: the same bits serial or parallel
            parts = np.zeros((min(_conv.FILTER_RUNS, x.shape[0]), w.shape[0], w[0].size), dtype=x.dtype)
            _conv.per_sample("grad_filter", gemm, x, dout, parts, geo, x, w.shape[0])
            dw = parts[0] if len(parts) == 1 else np.add.reduce(parts, axis=0)
            return {"Filter@GRAD": dw.reshape(w.shape)}
        threads.for_gemm(geo.gemm_macs(w.shape))
        cols = _conv.cols(x, geo)
        per_sample = np.matmul(_conv.dout_conv.per_sample(dout, geo), cols.swapaxes(-1, -2))  # [N, G, M/G, K/G]
        return {"Filter@GRAD": np.add.reduce(per_sample, axis=0).reshape(w.shape)}
    cols = _conv.im2col(x, geo)
    dw = np.matmul(_conv.out_as_matrix(dout, geo), cols.transpose(0, 2, 1))  # [G, M/G, C/G*kh*kw]
    return {"Filter@GRAD": dw.reshape(w.shape).astype(w.dtype, copy=False)}


def _conv2d_grad_input(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = ConvGeometry(x.shape, w.shape, attrs)
    n = x.shape[0]
    m = w.shape[0]
    if _onednn.applies(x, w, dout) and (dx := _onednn.grad_input(dout, w, geo, x.shape)) is not None:
        return {"Input@GRAD": dx}
    wmat = w.reshape(geo.groups, m // geo.groups, -1)
    if is_float(x, w, dout):
        gemm = _cblas.gemm(x.dtype)
        if gemm is not None:
            w, dout = np.ascontiguousarray(w), np.ascontiguousarray(dout)
            if _winograd.applies(geo, x.shape, w.shape):
                return {"Input@GRAD": _winograd.grad_input(gemm, dout, w, geo, x.shape)}
            dx = np.empty(x.shape, dtype=x.dtype)
            _conv.per_sample("grad_input", gemm, dout, w, dx, geo, x, m)
            return {"Input@GRAD": dx}
        threads.for_gemm(geo.gemm_macs(w.shape))
        dcols = np.matmul(wmat.swapaxes(1, 2), _conv.dout_conv.per_sample(dout, geo))     # [N, G, K/G, L]
        if geo.is_pointwise():
            return {"Input@GRAD": dcols.reshape(x.shape)}
        dx = np.empty(x.shape, dtype=x.dtype)
        _loops().col2im(dcols.reshape(n, -1, geo.ho * geo.wo), geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0],
                        geo.pads[2], geo.dh, geo.dw, geo.ho, geo.wo, dx)
        return {"Input@GRAD": dx}
    dcols = np.matmul(wmat.transpose(0, 2, 1), _conv.out_as_matrix(dout, geo))   # [G, C/G*kh*kw, N*Ho*Wo]
    return {"Input@GRAD": _conv.col2im(dcols, geo, x.shape, x.dtype)}


conv2d, conv2d_grad_input, conv2d_grad_filter = relu_first(activation, _conv2d, _conv2d_grad_input,
                                                            _conv2d_grad_filter)
conv2d_grad = both_grads(conv2d_grad_input, conv2d_grad_filter, _onednn.conv2d_grads)


# -- pool2d -----------------------------------------------------------------------------------------

def pool2d(ins, attrs):
    if attrs["adaptive"]:
        return adaptive_pool.pool2d(ins, attrs)
    x = ins["X"]
    geo = PoolGeometry(x.shape, attrs)
    is_max = attrs["pooling_type"] == "max"
    if is_float(x):
        x = np.ascontiguousarray(x)
        out = np.empty(x.shape[:2] + (geo.ho, geo.wo), dtype=x.dtype)
        loops, t, l = _pool_loops(), geo.pads[0], geo.pads[2]
        if geo.is_2x2_inside(x.shape):
            if is_max:
                par = x.shape[0] > 1 and parallel_parts(x.size) > 1
                args = (x, geo.ho, geo.wo, out)
                twin(loops.max_pool_2x2, loops.max_pool_2x2_parallel, par, *args, replica=_replicas.max_pool_2x2)(*args)
            else:
                loops.avg_pool_2x2(x, geo.ho, geo.wo, out)
        elif is_max:
            loops.max_pool(x, geo.kh, geo.kw, geo.sh, geo.sw, t, l, geo.ho, geo.wo, out)
        else:
            loops.avg_pool(x, geo.kh, geo.kw, geo.sh, geo.sw, t, l, geo.ho, geo.wo, bool(attrs["exclusive"]), out)
        return {"Out": out}
    return {"Out": _pool.forward(x, geo, is_max, attrs["exclusive"])}


def pool2d_grad(ins, attrs):
    if attrs["adaptive"]:
        return adaptive_pool.pool2d_grad(ins, attrs)
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    geo = PoolGeometry(x.shape, attrs)
    t, l = geo.pads[0], geo.pads[2]
    is_max = attrs["pooling_type"] == "max"
    if is_float(x, out, dout):
        dx = np.empty(x.shape, dtype=x.dtype)
        dout = np.ascontiguousarray(dout)
        loops = _pool_loops()
        if is_max:
            x, out = np.ascontiguousarray(x), np.ascontiguousarray(out)
            if geo.is_2x2_inside(x.shape):
                par = x.shape[0] > 1 and parallel_parts(x.size) > 1
                args = (x, out, dout, dx)
                twin(loops.max_pool_2x2_grad, loops.max_pool_2x2_grad_parallel, par, *args,
                     replica=_replicas.max_pool_2x2_grad)(*args)
            else:
                loops.max_pool_grad(x, out, dout, geo.kh, geo.kw, geo.sh, geo.sw, t, l, dx)
        elif geo.is_2x2_inside(x.shape):
            loops.avg_pool_2x2_grad(dout, dx)
        else:
            loops.avg_pool_grad(dout, geo.kh, geo.kw, geo.sh, geo.sw, t, l, bool(attrs["exclusive"]), dx)
        return {"X@GRAD": dx}
    return {"X@GRAD": _pool.backward(x, out, dout, geo, is_max, attrs["exclusive"])}


# -- batch_norm -------------------------------------------------------------------------------------

def _bn_axes(x, attrs):
    axis = bn_channel_axis(x.ndim, attrs["data_layout"])
    bshape = [1] * x.ndim
    bshape[axis] = -1
    return tuple(a for a in range(x.ndim) if a != axis), bshape


def batch_norm(ins, attrs):
    x, scale, bias, mean, var = ins["X"], ins["Scale"], ins["Bias"], ins["Mean"], ins["Variance"]
    axes, bshape = _bn_axes(x, attrs)
    dt = x.dtype
    if attrs["is_test"] or attrs["use_global_stats"]:
        m, v = mean.astype(dt, copy=False), var.astype(dt, copy=False)
        mean_out, var_out = mean, var
    elif by_channel_loops(x, attrs, scale, bias):
        return batch_norm_loops(ins, attrs)
    else:
        m = x.mean(axis=axes)
        v = x.var(axis=axes)              # biased, as Fluid uses for both Y and the moving variance
        mom = attrs["momentum"]
        mean_out = (mean * mom + m * (1.0 - mom)).astype(mean.dtype, copy=False)
        var_out = (var * mom + v * (1.0 - mom)).astype(var.dtype, copy=False)
    inv_std = (1.0 / np.sqrt(v + attrs["epsilon"])).astype(dt, copy=False)
    a = scale.astype(dt, copy=False) * inv_std
    y = x * a.reshape(bshape) + (bias.astype(dt, copy=False) - m * a).reshape(bshape)
    return {"Y": y.astype(dt, copy=False), "MeanOut": mean_out, "VarianceOut": var_out,
            "SavedMean": m.astype(dt, copy=False), "SavedVariance": inv_std}


def by_channel_loops(x, attrs, *others):
    """Training on float NCHW data (or [N, C]): the numba loops of _norm_loops.py."""
    return (attrs["data_layout"] != "NHWC" and x.ndim >= 2 and x.size > 0 and is_float(x, *others)
            and not attrs["is_test"] and not attrs["use_global_stats"])


def _channel_blocks(x):
    """Batch norm's blocks of channels, one a thread (more than one takes the parallel twin):
    several channels, enough data, several threads."""
    return min(x.shape[1], parallel_parts(x.size))


def _as_ncs(a):
    return np.ascontiguousarray(a).reshape(a.shape[0], a.shape[1], -1)


def batch_norm_loops(ins, attrs, relu=False):
    """batch_norm in training by the numba loops (where ``by_channel_loops``); with ``relu``, Y is
    relu of the normalized value, written in the same pass (fused_batch_norm_act)."""
    x, scale, bias = ins["X"], ins["Scale"], ins["Bias"]
    c = x.shape[1]
    y = np.empty(x.shape, dtype=x.dtype)
    m, v, inv_std = np.empty(c), np.empty(c), np.empty(c)
    parts = _channel_blocks(x)
    args = (_as_ncs(x), scale, bias, float(attrs["epsilon"]), y.reshape(x.shape[0], c, -1), m, v, inv_std, relu,
            parts)
    loops = _norm_loops()
    twin(loops.bn_forward, loops.bn_forward_parallel, parts > 1, *args)(*args)
    return bn_training_outputs(ins, attrs, y, m, v, inv_std)


def bn_training_outputs(ins, attrs, y, m, v, inv_std):
    """batch_norm's outputs in training from Y and the batch's float64 mean, var and inv_std."""
    mom, mean, var, dt = attrs["momentum"], ins["Mean"], ins["Variance"], y.dtype
    return {"Y": y, "MeanOut": (mean * mom + m * (1.0 - mom)).astype(mean.dtype, copy=False),
            "VarianceOut": (var * mom + v * (1.0 - mom)).astype(var.dtype, copy=False),
            "SavedMean": m.astype(dt), "SavedVariance": inv_std.astype(dt)}


def bn_grad_loops(ins, attrs, with_x, relu_out=None):
    """batch_norm_grad by the numba loops (where ``by_channel_loops``); with ``relu_out`` (Y of
    fused_batch_norm_act), the gradient of relu(batch_norm(X)): Y@GRAD passes where Y > 0."""
    x, scale, dy = ins["X"], ins["Scale"], ins["Y@GRAD"]
    c = x.shape[1]
    dx = np.empty(x.shape, dtype=x.dtype) if with_x else np.empty((1, 1, 1), dtype=x.dtype)
    dscale, dbias = np.empty(c), np.empty(c)
    relu = relu_out is not None
    dy = _as_ncs(dy)
    parts = _channel_blocks(x)
    args = (_as_ncs(x), dy, scale, ins["SavedMean"], ins["SavedVariance"], dx.reshape(dx.shape[0], dx.shape[1], -1),
            dscale, dbias, with_x, _as_ncs(relu_out) if relu else dy, relu, parts)
    loops = _norm_loops()
    twin(loops.bn_grad, loops.bn_grad_parallel, parts > 1, *args)(*args)
    outs = {"Scale@GRAD": dscale.astype(scale.dtype), "Bias@GRAD": dbias.astype(scale.dtype)}
    if with_x:
        outs["X@GRAD"] = dx
    return outs


def _bn_grad(ins, attrs, with_x):
    x, scale, sm, inv_std, dy = ins["X"], ins["Scale"], ins["SavedMean"], ins["SavedVariance"], ins["Y@GRAD"]
    if by_channel_loops(x, attrs, scale, dy, sm, inv_std):
        return bn_grad_loops(ins, attrs, with_x)
    axes, bshape = _bn_axes(x, attrs)
    xhat = (x - sm.reshape(bshape)) * inv_std.reshape(bshape)
    dbias = dy.sum(axis=axes)
    dscale = (dy * xhat).sum(axis=axes)
    outs = {"Scale@GRAD": dscale.astype(scale.dtype, copy=False), "Bias@GRAD": dbias.astype(scale.dtype, copy=False)}
    if with_x:
        k = (scale * inv_std).astype(x.dtype, copy=False)
        if attrs["is_test"] or attrs["use_global_stats"]:
            dx = dy * k.reshape(bshape)
        else:
            count = x.size // max(sm.size, 1)
            dx = (k / count).reshape(bshape) * (count * dy - dbias.reshape(bshape) - xhat * dscale.reshape(bshape))
        outs["X@GRAD"] = dx.astype(x.dtype, copy=False)
    return outs


def batch_norm_grad(ins, attrs):
    return _bn_grad(ins, attrs, True)


def batch_norm_grad_param(ins, attrs):
    return _bn_grad(ins, attrs, False)


# -- layer_norm -------------------------------------------------------------------------------------

def _ln_matrix(x, attrs):
    return x.reshape(layer_norm_split(x.shape, attrs["begin_norm_axis"]))


def layer_norm(ins, attrs):
    x = ins["X"]
    x2 = _ln_matrix(x, attrs)
    mean = x2.mean(axis=1)
    var = x2.var(axis=1)
    inv_std = 1.0 / np.sqrt(var + attrs["epsilon"])
    y = (x2 - mean[:, None]) * inv_std[:, None]
    if "Scale" in ins:
        y *= ins["Scale"].reshape(1, -1)
    if "Bias" in ins:
        y += ins["Bias"].reshape(1, -1)
    dt = x.dtype
    return {"Y": y.reshape(x.shape).astype(dt, copy=False), "Mean": mean.astype(dt, copy=False),
            "Variance": var.astype(dt, copy=False)}


def layer_norm_grad(ins, attrs):
    x, mean, var, dy = ins["X"], ins["Mean"], ins["Variance"], ins["Y@GRAD"]
    x2 = _ln_matrix(x, attrs)
    dy2 = dy.reshape(x2.shape)
    inv_std = (1.0 / np.sqrt(var + attrs["epsilon"]))[:, None]
    xhat = (x2 - mean[:, None]) * inv_std
    outs = {"Bias@GRAD": dy2.sum(axis=0).astype(x.dtype, copy=False)}
    g = dy2
    if "Scale" in ins:
        outs["Scale@GRAD"] = (dy2 * xhat).sum(axis=0).astype(x.dtype, copy=False)
        g = dy2 * ins["Scale"].reshape(1, -1)
    dx = inv_std * (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True))
    outs["X@GRAD"] = dx.reshape(x.shape).astype(x.dtype, copy=False)
    return outs


# -- dropout ----------------------------------------------------------------------------------------

def dropout(ins, attrs):
    x = ins["X"]
    p = attrs["dropout_prob"]
    upscale = attrs["dropout_implementation"] == "upscale_in_train"
    if attrs["is_test"]:
        out = x.copy() if upscale else x * x.dtype.type(1.0 - p)
        return {"Out": out}
    if attrs["fix_seed"]:
        rng = np.random.default_rng(attrs["seed"])      # the same mask on every run
    else:
        rng = attrs.get("_rng") or np.random.default_rng()
    mask = (rng.random(x.shape, dtype=np.float32) >= np.float32(p)).view(np.uint8) if p < 1.0 else \
        np.zeros(x.shape, dtype=np.uint8)
    out = x * mask
    if upscale and p < 1.0:
        out *= x.dtype.type(1.0 / (1.0 - p))
    return {"Out": out.astype(x.dtype, copy=False), "Mask": mask}


def dropout_grad(ins, attrs):
    mask, dout = ins["Mask"], ins["Out@GRAD"]
    p = attrs["dropout_prob"]
    dx = dout * mask
    if attrs["dropout_implementation"] == "upscale_in_train" and p < 1.0:
        dx *= dout.dtype.type(1.0 / (1.0 - p))
    return {"X@GRAD": dx.astype(dout.dtype, copy=False)}


# -- lookup_table -----------------------------------------------------------------------------------

def lookup_table(ins, attrs):
    w, ids = ins["W"], ins["Ids"]
    pad = attrs["padding_idx"]
    flat = table_ids(ids, w.shape, pad)
    out = w[flat]
    if pad >= 0:
        out[flat == pad] = 0
    return {"Out": out.reshape(lookup_out_shape(ids.shape, w.shape[1]))}


def lookup_table_v2(ins, attrs):
    out = lookup_table(ins, attrs)["Out"]
    return {"Out": out.reshape(tuple(ins["Ids"].shape) + (ins["W"].shape[1],))}


def lookup_table_grad(ins, attrs):
    w, ids, dout = ins["W"], ins["Ids"], ins["Out@GRAD"]
    pad = attrs["padding_idx"]
    flat = table_ids(ids, w.shape, pad)
    rows = dout.reshape(-1, w.shape[1])
    if pad >= 0:
        keep = flat != pad
        flat, rows = flat[keep], rows[keep]
    if attrs["is_sparse"]:      # the rows looked up (duplicates kept, padding_idx left out) and their gradients
        return {"W@GRAD": SelectedRows(flat.copy(), np.array(rows, dtype=w.dtype), w.shape[0])}
    dw = np.zeros(w.shape, dtype=w.dtype)
    np.add.at(dw, flat, rows)
    return {"W@GRAD": dw}
