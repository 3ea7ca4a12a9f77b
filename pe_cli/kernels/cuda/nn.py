"""CUDA twins of kernels/cpu/nn.py.

conv2d is im2col + the tiled matmul (batched over groups), as on the CPU; its input gradient is the
transposed product followed by col2im written as a gather (each input element sums the columns
that read it: deterministic, no atomics). Pooling is direct: one thread per output (max-pool's
gradient scatters to each window's first maximum). batch_norm statistics and layer_norm are block
reductions, one block per channel / per row. dropout draws its mask on the host with the CPU's
generator, so both devices drop the same units.
"""
import math

import numpy as np
from numba import cuda

from ...ops.nn import bn_channel_axis, lookup_out_shape
from ..common import ConvGeometry, PoolGeometry, table_ids
from ..cpu import nn as _cpu
from . import runtime as rt
from ._elementwise import scalar_arg
from ._launch import THREADS, copy, flat, grid, per_dtype, rows_grid, zeros
from ._matmul import matmul
from .math import _scale_after_k
from ._reduce import block_sum, reduce
from ._strided import contiguous_strides, copy_window

# -- conv2d -----------------------------------------------------------------------------------------


@cuda.jit
def _im2col(x, cols, C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, N, Ho, Wo):
    """cols[(c, i, j), (n, oh, ow)] = x[n, c, oh*sh - pt + i*dh, ow*sw - pl + j*dw] (0 in the padding)."""
    ncols = N * Ho * Wo
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < cols.size:
        row = e // ncols
        col = e % ncols
        j = row % kw
        i = (row // kw) % kh
        c = row // (kw * kh)
        ow = col % Wo
        oh = (col // Wo) % Ho
        n = col // (Wo * Ho)
        h = oh * sh - pt + i * dh
        w = ow * sw - pl + j * dw
        if 0 <= h < H and 0 <= w < W:
            cols[e] = x[((n * C + c) * H + h) * W + w]
        else:
            cols[e] = 0
        e += step


@cuda.jit
def _col2im(dcols, dx, C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, N, Ho, Wo):
    """dx[n, c, h, w] = sum of the columns that im2col filled from (n, c, h, w)."""
    ncols = N * Ho * Wo
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dx.size:
        w = e % W
        h = (e // W) % H
        c = (e // (W * H)) % C
        n = e // (W * H * C)
        acc = 0.0
        for i in range(kh):
            top = h + pt - i * dh
            if top >= 0 and top % sh == 0 and top // sh < Ho:
                oh = top // sh
                for j in range(kw):
                    left = w + pl - j * dw
                    if left >= 0 and left % sw == 0 and left // sw < Wo:
                        ow = left // sw
                        acc += dcols[((c * kh + i) * kw + j) * ncols + (n * Ho + oh) * Wo + ow]
        dx[e] = acc
        e += step


def _geometry(x, w, attrs):
    return ConvGeometry(tuple(x.shape), tuple(w.shape), attrs)


def _cols(x, geo):
    n, c, h, wd = x.shape
    cols = rt.empty((c * geo.kh * geo.kw, n * geo.ho * geo.wo), x.dtype)
    _im2col[grid(cols.size)](flat(x), flat(cols), c, h, wd, geo.kh, geo.kw, geo.sh, geo.sw, geo.dh, geo.dw,
                             geo.pads[0], geo.pads[2], n, geo.ho, geo.wo)
    return cols.reshape((geo.groups, cols.shape[0] // geo.groups, cols.shape[1]))


def _swap01(a):
    """[A, B, ...] -> [B, A, ...] as a new contiguous array."""
    shape = tuple(a.shape)
    out_shape = (shape[1], shape[0]) + shape[2:]
    st = contiguous_strides(shape)
    out = rt.empty(out_shape, a.dtype)
    copy_window(a, out, out_shape, (st[1], st[0]) + st[2:], contiguous_strides(out_shape))
    return out


def _dout_matrix(dout, geo):
    """Output@GRAD [N, M, Ho, Wo] -> [groups, M/groups, N*Ho*Wo]."""
    n, m = dout.shape[0], dout.shape[1]
    return _swap01(dout).reshape((geo.groups, m // geo.groups, n * geo.ho * geo.wo))


def conv2d(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    geo = _geometry(x, w, attrs)
    n, m = x.shape[0], w.shape[0]
    out = matmul(w.reshape((geo.groups, m // geo.groups, w.size // m)), _cols(x, geo))   # [G, M/G, N*Ho*Wo]
    return {"Output": _swap01(out.reshape((m, n, geo.ho, geo.wo)))}


def conv2d_grad_filter(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _geometry(x, w, attrs)
    dw = matmul(_dout_matrix(dout, geo), _cols(x, geo), trans_b=True)          # [G, M/G, C/G*kh*kw]
    return {"Filter@GRAD": dw.reshape(tuple(w.shape))}


def conv2d_grad_input(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _geometry(x, w, attrs)
    n, c, h, wd = x.shape
    m = w.shape[0]
    wmat = w.reshape((geo.groups, m // geo.groups, w.size // m))
    dcols = matmul(wmat, _dout_matrix(dout, geo), trans_a=True)               # [G, C/G*kh*kw, N*Ho*Wo]
    dx = rt.empty(x.shape, x.dtype)
    _col2im[grid(dx.size)](flat(dcols), flat(dx), c, h, wd, geo.kh, geo.kw, geo.sh, geo.sw, geo.dh, geo.dw,
                           geo.pads[0], geo.pads[2], n, geo.ho, geo.wo)
    return {"Input@GRAD": dx}


depthwise_conv2d = conv2d
depthwise_conv2d_grad_input = conv2d_grad_input
depthwise_conv2d_grad_filter = conv2d_grad_filter


# -- pool2d -----------------------------------------------------------------------------------------

@cuda.jit
def _pool(x, out, H, W, Ho, Wo, kh, kw, sh, sw, pt, pl, is_max, exclusive):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        ow = e % Wo
        oh = (e // Wo) % Ho
        plane = e // (Wo * Ho)
        hs = oh * sh - pt
        ws = ow * sw - pl
        base = plane * H * W
        if is_max:
            acc = -math.inf
        else:
            acc = 0.0
        for i in range(kh):
            h = hs + i
            if 0 <= h < H:
                for j in range(kw):
                    w = ws + j
                    if 0 <= w < W:
                        v = x[base + h * W + w]
                        if is_max:
                            if v > acc:
                                acc = v
                        else:
                            acc += v
        if not is_max:
            if exclusive:
                count = (min(hs + kh, H) - max(hs, 0)) * (min(ws + kw, W) - max(ws, 0))
                acc /= max(count, 1)
            else:
                acc /= kh * kw
        out[e] = acc
        e += step


@cuda.jit
def _max_pool_grad(x, out, dout, dx, H, W, Ho, Wo, kh, kw, sh, sw, pt, pl):
    """Each window's gradient goes to its first element equal to the maximum."""
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        ow = e % Wo
        oh = (e // Wo) % Ho
        plane = e // (Wo * Ho)
        hs = oh * sh - pt
        ws = ow * sw - pl
        base = plane * H * W
        target = out[e]
        found = False
        for i in range(kh):
            h = hs + i
            if not found and 0 <= h < H:
                for j in range(kw):
                    w = ws + j
                    if not found and 0 <= w < W and x[base + h * W + w] == target:
                        cuda.atomic.add(dx, base + h * W + w, dout[e])
                        found = True
        e += step


@cuda.jit
def _avg_pool_grad(dout, dx, H, W, Ho, Wo, kh, kw, sh, sw, pt, pl, exclusive):
    """dx[h, w] = sum over the windows holding (h, w) of their gradient / their divisor (a gather)."""
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dx.size:
        w = e % W
        h = (e // W) % H
        plane = e // (W * H)
        acc = 0.0
        for i in range(kh):
            top = h + pt - i
            if top >= 0 and top % sh == 0 and top // sh < Ho:
                oh = top // sh
                hs = oh * sh - pt
                for j in range(kw):
                    left = w + pl - j
                    if left >= 0 and left % sw == 0 and left // sw < Wo:
                        ow = left // sw
                        ws = ow * sw - pl
                        if exclusive:
                            count = max((min(hs + kh, H) - max(hs, 0)) * (min(ws + kw, W) - max(ws, 0)), 1)
                        else:
                            count = kh * kw
                        acc += dout[(plane * Ho + oh) * Wo + ow] / count
        dx[e] = acc
        e += step


def _pool_args(x, attrs):
    geo = PoolGeometry(tuple(x.shape), attrs)
    h, w = x.shape[2], x.shape[3]
    return geo, (h, w, geo.ho, geo.wo, geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0], geo.pads[2])


def pool2d(ins, attrs):
    x = ins["X"]
    geo, args = _pool_args(x, attrs)
    out = rt.empty((x.shape[0], x.shape[1], geo.ho, geo.wo), x.dtype)
    if out.size:
        _pool[grid(out.size)](flat(x), flat(out), *args, attrs["pooling_type"] == "max", bool(attrs["exclusive"]))
    return {"Out": out}


def pool2d_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    geo, args = _pool_args(x, attrs)
    if attrs["pooling_type"] == "max":
        dx = zeros(x.shape, x.dtype)
        if out.size:
            _max_pool_grad[grid(out.size)](flat(x), flat(out), flat(dout), flat(dx), *args)
    else:
        dx = rt.empty(x.shape, x.dtype)
        if dx.size:
            _avg_pool_grad[grid(dx.size)](flat(dout), flat(dx), *args, bool(attrs["exclusive"]))
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


def _channel_stats_kernel(dt):
    T = THREADS
    zero = dt(0)

    @cuda.jit
    def kernel(x, mean, var, C, inner, count):
        """Per channel (one block each): mean, then the biased variance around it (two passes)."""
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        c = cuda.blockIdx.x
        while c < C:
            s = zero
            for r in range(t, count, nt):
                s += x[((r // inner) * C + c) * inner + r % inner]
            m = block_sum(shared, s) / count
            s = zero
            for r in range(t, count, nt):
                d = x[((r // inner) * C + c) * inner + r % inner] - m
                s += d * d
            v = block_sum(shared, s) / count
            if t == 0:
                mean[c] = m
                var[c] = v
            c += cuda.gridDim.x
    return kernel


_channel_stats = per_dtype(_channel_stats_kernel)


@cuda.jit
def _bn_coefficients(m, v, scale, bias, mean_in, var_in, eps, momentum, update, a, shift, inv_std,
                     mean_out, var_out):
    c = cuda.grid(1)
    if c < m.size:
        s = 1.0 / math.sqrt(v[c] + eps)
        inv_std[c] = s
        a[c] = scale[c] * inv_std[c]
        shift[c] = bias[c] - m[c] * a[c]
        if update:
            mean_out[c] = mean_in[c] * momentum + m[c] * (1.0 - momentum)
            var_out[c] = var_in[c] * momentum + v[c] * (1.0 - momentum)


@cuda.jit
def _per_channel_affine(x, a, shift, y, C, inner):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < y.size:
        c = (e // inner) % C
        y[e] = x[e] * a[c] + shift[c]
        e += step


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
        _channel_stats(dt)[rows_grid(C, count)](flat(x), m, v, C, inner, count)
        mean_out, var_out = rt.empty(mean.shape, mean.dtype), rt.empty(var.shape, var.dtype)
    a, shift, inv_std = rt.empty((C,), dt), rt.empty((C,), dt), rt.empty((C,), dt)
    _bn_coefficients[grid(C)](m, v, flat(scale), flat(bias), flat(mean), flat(var), attrs["epsilon"],
                              attrs["momentum"], not use_stats, a, shift, inv_std, flat(mean_out), flat(var_out))
    y = rt.empty(x.shape, dt)
    if y.size:
        _per_channel_affine[grid(y.size)](flat(x), a, shift, flat(y), C, inner)
    return {"Y": y, "MeanOut": mean_out, "VarianceOut": var_out, "SavedMean": m, "SavedVariance": inv_std}


def _bn_grad_sums_kernel(dt):
    T = THREADS
    zero = dt(0)

    @cuda.jit
    def kernel(x, dy, saved_mean, inv_std, dbias, dscale, C, inner, count):
        """Per channel: sum(dy) and sum(dy * xhat), one block each."""
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        c = cuda.blockIdx.x
        while c < C:
            sb = zero
            ss = zero
            for r in range(t, count, nt):
                k = ((r // inner) * C + c) * inner + r % inner
                sb += dy[k]
                ss += dy[k] * ((x[k] - saved_mean[c]) * inv_std[c])
            sb = block_sum(shared, sb)
            ss = block_sum(shared, ss)
            if t == 0:
                dbias[c] = sb
                dscale[c] = ss
            c += cuda.gridDim.x
    return kernel


_bn_grad_sums = per_dtype(_bn_grad_sums_kernel)


@cuda.jit
def _bn_dx(x, dy, saved_mean, inv_std, scale, dbias, dscale, dx, C, inner, count, use_stats):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dx.size:
        c = (e // inner) % C
        k = scale[c] * inv_std[c]
        if use_stats:
            dx[e] = dy[e] * k
        else:
            xhat = (x[e] - saved_mean[c]) * inv_std[c]
            dx[e] = (k / count) * (count * dy[e] - dbias[c] - xhat * dscale[c])
        e += step


def _bn_grad(ins, attrs, with_x):
    x, scale, sm, inv_std, dy = ins["X"], ins["Scale"], ins["SavedMean"], ins["SavedVariance"], ins["Y@GRAD"]
    C, inner, count = _channel_layout(x, attrs)
    dbias, dscale = rt.empty((C,), x.dtype), rt.empty((C,), x.dtype)
    _bn_grad_sums(x.dtype)[rows_grid(C, count)](flat(x), flat(dy), flat(sm), flat(inv_std), dbias, dscale,
                                                C, inner, count)
    outs = {"Scale@GRAD": _as_dtype(dscale, scale.dtype), "Bias@GRAD": _as_dtype(dbias, scale.dtype)}
    if with_x:
        dx = rt.empty(x.shape, x.dtype)
        if dx.size:
            _bn_dx[grid(dx.size)](flat(x), flat(dy), flat(sm), flat(inv_std), flat(scale), dbias, dscale,
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
    b = attrs["begin_norm_axis"]
    rows = 1
    for d in tuple(x.shape)[:b]:
        rows *= d
    return rows, x.size // max(rows, 1)


def _layer_norm_kernel(dt, has_scale, has_bias):
    T = THREADS
    zero = dt(0)

    @cuda.jit
    def kernel(x, scale, bias, y, mean, var, rows, n, eps):
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        r = cuda.blockIdx.x
        while r < rows:
            base = r * n
            s = zero
            for j in range(t, n, nt):
                s += x[base + j]
            m = block_sum(shared, s) / n
            s = zero
            for j in range(t, n, nt):
                d = x[base + j] - m
                s += d * d
            v = block_sum(shared, s) / n
            inv_std = 1.0 / math.sqrt(v + eps)
            for j in range(t, n, nt):
                out = (x[base + j] - m) * inv_std
                if has_scale:
                    out *= scale[j]
                if has_bias:
                    out += bias[j]
                y[base + j] = out
            if t == 0:
                mean[r] = m
                var[r] = v
            r += cuda.gridDim.x
    return kernel


_layer_norm = per_dtype(_layer_norm_kernel)


def layer_norm(ins, attrs):
    x = ins["X"]
    rows, n = _ln_shape(x, attrs)
    dt = x.dtype
    y, mean, var = rt.empty(x.shape, dt), rt.empty((rows,), dt), rt.empty((rows,), dt)
    scale, bias = ins.get("Scale"), ins.get("Bias")
    if y.size:
        _layer_norm(dt, scale is not None, bias is not None)[rows_grid(rows, n)](
            flat(x), flat(scale if scale is not None else x), flat(bias if bias is not None else x),
            flat(y), mean, var, rows, n, attrs["epsilon"])
    return {"Y": y, "Mean": mean, "Variance": var}


def _layer_norm_dx_kernel(dt, has_scale):
    T = THREADS
    zero = dt(0)

    @cuda.jit
    def kernel(x, scale, mean, var, dy, dx, rows, n, eps):
        """dx = inv_std * (g - mean(g) - xhat * mean(g * xhat)), g = dy * scale, per row."""
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        r = cuda.blockIdx.x
        while r < rows:
            base = r * n
            inv_std = 1.0 / math.sqrt(var[r] + eps)
            sg = zero
            sgx = zero
            for j in range(t, n, nt):
                g = dy[base + j] * scale[j] if has_scale else dy[base + j]
                sg += g
                sgx += g * ((x[base + j] - mean[r]) * inv_std)
            mg = block_sum(shared, sg) / n
            mgx = block_sum(shared, sgx) / n
            for j in range(t, n, nt):
                g = dy[base + j] * scale[j] if has_scale else dy[base + j]
                xhat = (x[base + j] - mean[r]) * inv_std
                dx[base + j] = inv_std * (g - mg - xhat * mgx)
            r += cuda.gridDim.x
    return kernel


_layer_norm_dx = per_dtype(_layer_norm_dx_kernel)


@cuda.jit
def _dy_xhat(x, mean, var, dy, out, n, eps):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        r = e // n
        out[e] = dy[e] * ((x[e] - mean[r]) * (1.0 / math.sqrt(var[r] + eps)))
        e += step


def layer_norm_grad(ins, attrs):
    x, mean, var, dy = ins["X"], ins["Mean"], ins["Variance"], ins["Y@GRAD"]
    rows, n = _ln_shape(x, attrs)
    scale = ins.get("Scale")
    dy2 = dy.reshape((rows, n))
    outs = {"Bias@GRAD": reduce(dy2, (0,), "sum")}
    if scale is not None:
        prod = rt.empty((rows, n), x.dtype)
        if prod.size:
            _dy_xhat[grid(prod.size)](flat(x), flat(mean), flat(var), flat(dy), flat(prod), n, attrs["epsilon"])
        outs["Scale@GRAD"] = reduce(prod, (0,), "sum")
    dx = rt.empty(x.shape, x.dtype)
    if dx.size:
        _layer_norm_dx(x.dtype, scale is not None)[rows_grid(rows, n)](
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


def lookup_table_grad(ins, attrs):
    w, ids, dout = ins["W"], ins["Ids"], ins["Out@GRAD"]
    pad = attrs["padding_idx"]
    width = w.shape[1]
    idx = _checked_ids(ids, w, pad)
    dw = zeros(w.shape, w.dtype)
    if dout.size:
        _lookup_grad[grid(dout.size)](idx, flat(dout), flat(dw), width, pad)
    return {"W@GRAD": dw}
