"""CPU kernels of the nn ops.

float32/float64 (the types the numba loops are compiled for, _nn_loops.py):
conv2d is im2col + GEMM per sample, in one numba loop over the samples: each sample's columns
[C*kh*kw, Ho*Wo] are built in a per-thread buffer (small enough to stay in L2) and multiplied by
the filter with numpy's BLAS called from the loop (_cblas.py), straight into the NCHW output. The
filter gradient accumulates Output@GRAD x columns^T per thread, the input gradient is
filter^T x Output@GRAD then col2im, per sample. When the device has several cores the samples are
spread over numba's threads (the loops' ``*_parallel`` twins; pe_cli/threads.py). A 1x1 stride-1
unpadded filter uses the input itself as its columns. Where numpy's BLAS cannot be called from
numba, the columns of the whole batch are built by a numba loop and multiplied by one batched
``numpy.matmul``. Pooling (max, avg; paddings, ceil_mode) is a numba loop over the windows.

Other dtypes take the vectorised numpy path: im2col as one strided copy of the padded input into
[groups, C/groups*kh*kw, N*Ho*Wo] and one GEMM, col2im as kh*kw strided adds, pooling as a loop
over kernel or output positions (whichever is fewer) vectorised over the batch and channels.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ... import threads
from ...errors import PeError
from . import _cblas
from ..common import table_ids
from ._numba import is_float, lazy, parallel_parts
from ._numba import parallel_threads as _numba_parallel_threads
from ...ops.nn import bn_channel_axis, conv_out_size, conv_paddings, lookup_out_shape, pool_geometry, pool_out_size

_loops = lazy("_nn_loops")


def _pad(x, pads, value, extent=None):
    """x [N, C, H, W] padded by [top, bottom, left, right] (bottom/right grown to ``extent``)."""
    t, b, l, r = pads
    n, c, h, w = x.shape
    hp, wp = h + t + b, w + l + r
    if extent is not None:
        hp, wp = max(hp, extent[0]), max(wp, extent[1])
    if (hp, wp) == (h, w):
        return x
    out = np.full((n, c, hp, wp), value, dtype=x.dtype)
    out[:, :, t:t + h, l:l + w] = x
    return out


# -- conv2d -----------------------------------------------------------------------------------------

class _ConvGeometry:
    __slots__ = ("pads", "kh", "kw", "sh", "sw", "dh", "dw", "ho", "wo", "groups")

    def __init__(self, x_shape, w_shape, attrs):
        strides = attrs["strides"]
        self.kh, self.kw = w_shape[2], w_shape[3]
        self.pads, dil = conv_paddings(attrs["paddings"], attrs["padding_algorithm"], x_shape[2:], w_shape[2:],
                                       strides, attrs["dilations"])
        self.sh, self.sw = strides
        self.dh, self.dw = dil
        self.ho = conv_out_size(x_shape[2], self.kh, self.pads[0], self.pads[1], self.sh, self.dh)
        self.wo = conv_out_size(x_shape[3], self.kw, self.pads[2], self.pads[3], self.sw, self.dw)
        self.groups = attrs["groups"]
        if self.ho <= 0 or self.wo <= 0:
            raise PeError(f"filter {list(w_shape)} does not fit input {list(x_shape)} "
                          f"(output {self.ho}x{self.wo})")
        if x_shape[1] != w_shape[1] * self.groups:
            raise PeError(f"input {list(x_shape)} has {x_shape[1]} channels, filter {list(w_shape)} with "
                          f"groups={self.groups} expects {w_shape[1] * self.groups}")

    def loop_args(self):
        """The geometry as the conv loops take it (_nn_loops.conv_*)."""
        return (self.groups, self.kh, self.kw, self.sh, self.sw, self.pads[0], self.pads[2], self.dh, self.dw,
                self.ho, self.wo, self.is_pointwise())

    def gemm_macs(self, w_shape):
        """Multiply-adds of one per-sample, per-group GEMM."""
        return (w_shape[0] // self.groups) * w_shape[1] * self.kh * self.kw * self.ho * self.wo

    def is_pointwise(self):
        """A 1x1 filter at stride 1 without padding: the input is its own im2col matrix."""
        return (self.kh, self.kw, self.sh, self.sw) == (1, 1, 1, 1) and not any(self.pads)


def _im2col(x, geo):
    """[groups, C/groups*kh*kw, N*Ho*Wo]: rows ordered (c, i, j) like the filter, columns (n, ho, wo)."""
    n, c = x.shape[:2]
    xp = _pad(x, geo.pads, 0)
    s0, s1, s2, s3 = xp.strides
    view = as_strided(xp, (c, geo.kh, geo.kw, n, geo.ho, geo.wo),
                      (s1, s2 * geo.dh, s3 * geo.dw, s0, s2 * geo.sh, s3 * geo.sw), writeable=False)
    return view.reshape(geo.groups, (c // geo.groups) * geo.kh * geo.kw, n * geo.ho * geo.wo)


def _out_as_matrix(dout, geo):
    """Output@GRAD [N, M, Ho, Wo] -> [groups, M/groups, N*Ho*Wo]."""
    n, m = dout.shape[:2]
    return dout.transpose(1, 0, 2, 3).reshape(geo.groups, m // geo.groups, n * geo.ho * geo.wo)


def conv2d(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    geo = _ConvGeometry(x.shape, w.shape, attrs)
    if is_float(x, w):
        gemm = _cblas.gemm(x.dtype)
        if gemm is not None:
            x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
            out = np.empty((x.shape[0], w.shape[0], geo.ho, geo.wo), dtype=x.dtype)
            par = _parallel(x.shape[0])
            run = _loops().conv_forward_parallel if par > 1 else _loops().conv_forward
            run(gemm, x, w, *geo.loop_args(), out, _buffers(par, geo, x))
            return {"Output": out}
        threads.for_gemm(geo.gemm_macs(w.shape))
        cols = _cols(x, geo)                                                 # [N, G, K/G, L]
        out = np.matmul(w.reshape(geo.groups, w.shape[0] // geo.groups, -1), cols)    # [N, G, M/G, L]
        return {"Output": out.reshape(x.shape[0], w.shape[0], geo.ho, geo.wo)}
    n, m = x.shape[0], w.shape[0]
    cols = _im2col(x, geo)
    out = np.matmul(w.reshape(geo.groups, m // geo.groups, -1), cols)     # [G, M/G, N*Ho*Wo]
    out = out.reshape(m, n, geo.ho, geo.wo).transpose(1, 0, 2, 3)
    return {"Output": np.ascontiguousarray(out, dtype=x.dtype)}


def conv2d_grad_filter(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _ConvGeometry(x.shape, w.shape, attrs)
    if is_float(x, w, dout):
        gemm = _cblas.gemm(x.dtype)
        if gemm is not None:
            x, dout = np.ascontiguousarray(x), np.ascontiguousarray(dout)
            par = _parallel(x.shape[0])
            parts = np.zeros((par, w.shape[0], w[0].size), dtype=x.dtype)     # one sum per thread
            run = _loops().conv_grad_filter_parallel if par > 1 else _loops().conv_grad_filter
            run(gemm, x, dout, *geo.loop_args(), parts, _buffers(par, geo, x))
            dw = parts[0] if par == 1 else np.add.reduce(parts, axis=0)
            return {"Filter@GRAD": dw.reshape(w.shape)}
        threads.for_gemm(geo.gemm_macs(w.shape))
        cols = _cols(x, geo)
        per_sample = np.matmul(_dout_per_sample(dout, geo), cols.swapaxes(-1, -2))  # [N, G, M/G, K/G]
        return {"Filter@GRAD": np.add.reduce(per_sample, axis=0).reshape(w.shape)}
    cols = _im2col(x, geo)
    dw = np.matmul(_out_as_matrix(dout, geo), cols.transpose(0, 2, 1))  # [G, M/G, C/G*kh*kw]
    return {"Filter@GRAD": dw.reshape(w.shape).astype(w.dtype, copy=False)}


def conv2d_grad_input(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _ConvGeometry(x.shape, w.shape, attrs)
    n, c, h, wd = x.shape
    m = w.shape[0]
    wmat = w.reshape(geo.groups, m // geo.groups, -1)
    if is_float(x, w, dout):
        gemm = _cblas.gemm(x.dtype)
        if gemm is not None:
            w, dout = np.ascontiguousarray(w), np.ascontiguousarray(dout)
            dx = np.empty(x.shape, dtype=x.dtype)
            par = _parallel(n)
            run = _loops().conv_grad_input_parallel if par > 1 else _loops().conv_grad_input
            run(gemm, dout, w, *geo.loop_args(), dx, _buffers(par, geo, x))
            return {"Input@GRAD": dx}
        threads.for_gemm(geo.gemm_macs(w.shape))
        dcols = np.matmul(wmat.swapaxes(1, 2), _dout_per_sample(dout, geo))     # [N, G, K/G, L]
        if geo.is_pointwise():
            return {"Input@GRAD": dcols.reshape(x.shape)}
        dx = np.empty(x.shape, dtype=x.dtype)
        _loops().col2im(dcols.reshape(n, -1, geo.ho * geo.wo), geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0],
                        geo.pads[2], geo.dh, geo.dw, geo.ho, geo.wo, dx)
        return {"Input@GRAD": dx}
    dcols = np.matmul(wmat.transpose(0, 2, 1), _out_as_matrix(dout, geo))   # [G, C/G*kh*kw, N*Ho*Wo]
    dcols = dcols.reshape(c, geo.kh, geo.kw, n, geo.ho, geo.wo)
    t, b, l, r = geo.pads
    dxp = np.zeros((n, c, h + t + b, wd + l + r), dtype=x.dtype)
    hspan, wspan = geo.sh * (geo.ho - 1) + 1, geo.sw * (geo.wo - 1) + 1
    for i in range(geo.kh):
        hi = i * geo.dh
        for j in range(geo.kw):
            wj = j * geo.dw
            dxp[:, :, hi:hi + hspan:geo.sh, wj:wj + wspan:geo.sw] += dcols[:, i, j].transpose(1, 0, 2, 3)
    return {"Input@GRAD": np.ascontiguousarray(dxp[:, :, t:t + h, l:l + wd])}


def _parallel(n):
    """Threads for a convolution over n samples: the device's share when it has several (and the
    samples to spread), else 1 (the serial loop)."""
    return _numba_parallel_threads() if n > 1 else 1


def _buffers(par, geo, x):
    """A columns buffer [C*kh*kw, Ho*Wo] per thread: a sample's columns stay in L2 between im2col and
    its GEMM (the whole batch's would not)."""
    return np.empty((par, x.shape[1] * geo.kh * geo.kw, geo.ho * geo.wo), dtype=x.dtype)


def _cols(x, geo):
    """x as im2col columns per sample, [N, G, C/G*kh*kw, Ho*Wo] (a view of x for a 1x1 stride-1
    unpadded filter, which needs no copy)."""
    n, c = x.shape[:2]
    x = np.ascontiguousarray(x)
    if geo.is_pointwise():
        return x.reshape(n, geo.groups, c // geo.groups, geo.ho * geo.wo)
    cols = np.empty((n, c * geo.kh * geo.kw, geo.ho * geo.wo), dtype=x.dtype)
    _loops().im2col(x, geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0], geo.pads[2], geo.dh, geo.dw,
                    geo.ho, geo.wo, cols)
    return cols.reshape(n, geo.groups, -1, geo.ho * geo.wo)


def _dout_per_sample(dout, geo):
    """Output@GRAD [N, M, Ho, Wo] as [N, G, M/G, Ho*Wo] (a view when contiguous)."""
    n, m = dout.shape[:2]
    return np.ascontiguousarray(dout).reshape(n, geo.groups, m // geo.groups, geo.ho * geo.wo)


depthwise_conv2d = conv2d
depthwise_conv2d_grad_input = conv2d_grad_input
depthwise_conv2d_grad_filter = conv2d_grad_filter


# -- pool2d -----------------------------------------------------------------------------------------

class _PoolGeometry:
    __slots__ = ("kh", "kw", "sh", "sw", "pads", "ho", "wo", "extent")

    def __init__(self, x_shape, attrs):
        h, w = x_shape[2:]
        ksize, strides, self.pads = pool_geometry(attrs, (h, w))
        self.kh, self.kw = ksize
        self.sh, self.sw = strides
        ceil = attrs["ceil_mode"] and not attrs["global_pooling"]
        self.ho = pool_out_size(h, self.kh, self.pads[0], self.pads[1], self.sh, ceil)
        self.wo = pool_out_size(w, self.kw, self.pads[2], self.pads[3], self.sw, ceil)
        if self.ho <= 0 or self.wo <= 0:
            raise PeError(f"pool window {ksize} (paddings {self.pads}) does not fit input {list(x_shape)}")
        self.extent = ((self.ho - 1) * self.sh + self.kh, (self.wo - 1) * self.sw + self.kw)

    def is_2x2_inside(self, x_shape):
        """2x2 windows at stride 2, none reaching outside the input: the unrolled loops apply."""
        return (self.kh, self.kw, self.sh, self.sw) == (2, 2, 2, 2) and not any(self.pads) and \
            (self.ho - 1) * self.sh + 2 <= x_shape[2] and (self.wo - 1) * self.sw + 2 <= x_shape[3]

    def by_kernel(self):
        """True: loop over kernel positions (each a strided slice over all outputs); False: loop over
        output positions (each a window over the batch). Whichever has fewer steps."""
        return self.kh * self.kw <= self.ho * self.wo

    def kernel_slices(self):
        hspan, wspan = self.sh * (self.ho - 1) + 1, self.sw * (self.wo - 1) + 1
        for i in range(self.kh):
            for j in range(self.kw):
                yield (slice(None), slice(None), slice(i, i + hspan, self.sh), slice(j, j + wspan, self.sw))

    def windows(self):
        for oh in range(self.ho):
            for ow in range(self.wo):
                h0, w0 = oh * self.sh, ow * self.sw
                yield oh, ow, (slice(None), slice(None), slice(h0, h0 + self.kh), slice(w0, w0 + self.kw))

    def counts(self, h, w, exclusive):
        """Divisor of each average: non-padding elements in the window (exclusive) or kh*kw."""
        if not exclusive:
            return self.kh * self.kw

        def along(size, k, s, pad, out):
            start = np.arange(out) * s - pad
            return np.minimum(start + k, size) - np.maximum(start, 0)
        ch = along(h, self.kh, self.sh, self.pads[0], self.ho)
        cw = along(w, self.kw, self.sw, self.pads[2], self.wo)
        return np.maximum(ch[:, None] * cw[None, :], 1)


def pool2d(ins, attrs):
    x = ins["X"]
    geo = _PoolGeometry(x.shape, attrs)
    is_max = attrs["pooling_type"] == "max"
    if is_float(x):
        x = np.ascontiguousarray(x)
        out = np.empty(x.shape[:2] + (geo.ho, geo.wo), dtype=x.dtype)
        loops, t, l = _loops(), geo.pads[0], geo.pads[2]
        if geo.is_2x2_inside(x.shape):
            if is_max:
                par = x.shape[0] > 1 and parallel_parts(x.size) > 1
                (loops.max_pool_2x2_parallel if par else loops.max_pool_2x2)(x, geo.ho, geo.wo, out)
            else:
                loops.avg_pool_2x2(x, geo.ho, geo.wo, out)
        elif is_max:
            loops.max_pool(x, geo.kh, geo.kw, geo.sh, geo.sw, t, l, geo.ho, geo.wo, out)
        else:
            loops.avg_pool(x, geo.kh, geo.kw, geo.sh, geo.sw, t, l, geo.ho, geo.wo, bool(attrs["exclusive"]), out)
        return {"Out": out}
    xp = _pad(x, geo.pads, -np.inf if is_max else 0, geo.extent)
    n, c = x.shape[:2]
    if geo.by_kernel():
        out = None
        for sl in geo.kernel_slices():
            if out is None:
                out = xp[sl].copy()
            elif is_max:
                np.maximum(out, xp[sl], out=out)
            else:
                out += xp[sl]
    else:
        out = np.empty((n, c, geo.ho, geo.wo), dtype=x.dtype)
        reduce = np.max if is_max else np.sum
        for oh, ow, sl in geo.windows():
            out[:, :, oh, ow] = reduce(xp[sl], axis=(2, 3))
    if not is_max:
        out /= np.asarray(geo.counts(x.shape[2], x.shape[3], attrs["exclusive"]), dtype=x.dtype)
    return {"Out": out}


def pool2d_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    geo = _PoolGeometry(x.shape, attrs)
    n, c, h, w = x.shape
    t, l = geo.pads[0], geo.pads[2]
    is_max = attrs["pooling_type"] == "max"
    if is_float(x, out, dout):
        dx = np.empty(x.shape, dtype=x.dtype)
        dout = np.ascontiguousarray(dout)
        loops = _loops()
        if is_max:
            x, out = np.ascontiguousarray(x), np.ascontiguousarray(out)
            if geo.is_2x2_inside(x.shape):
                par = x.shape[0] > 1 and parallel_parts(x.size) > 1
                (loops.max_pool_2x2_grad_parallel if par else loops.max_pool_2x2_grad)(x, out, dout, dx)
            else:
                loops.max_pool_grad(x, out, dout, geo.kh, geo.kw, geo.sh, geo.sw, t, l, dx)
        elif geo.is_2x2_inside(x.shape):
            loops.avg_pool_2x2_grad(dout, dx)
        else:
            loops.avg_pool_grad(dout, geo.kh, geo.kw, geo.sh, geo.sw, t, l, bool(attrs["exclusive"]), dx)
        return {"X@GRAD": dx}
    shape = (n, c, max(h + geo.pads[0] + geo.pads[1], geo.extent[0]), max(w + geo.pads[2] + geo.pads[3], geo.extent[1]))
    dxp = np.zeros(shape, dtype=x.dtype)
    if is_max:
        # The gradient goes to the first element of each window equal to the maximum, as in Fluid.
        xp = _pad(x, geo.pads, -np.inf, geo.extent)
        if geo.by_kernel():
            taken = np.zeros(out.shape, dtype=bool)
            for sl in geo.kernel_slices():
                hit = (xp[sl] == out) & ~taken
                dxp[sl] += dout * hit
                taken |= hit
        else:
            for oh, ow, sl in geo.windows():
                win = xp[sl].reshape(n, c, -1)
                first = np.argmax(win == out[:, :, oh, ow, None], axis=-1)
                onehot = np.zeros(win.shape, dtype=x.dtype)
                np.put_along_axis(onehot, first[..., None], dout[:, :, oh, ow, None], axis=-1)
                dxp[sl] += onehot.reshape(n, c, geo.kh, geo.kw)
    else:
        g = dout / np.asarray(geo.counts(h, w, attrs["exclusive"]), dtype=x.dtype)
        if geo.by_kernel():
            for sl in geo.kernel_slices():
                dxp[sl] += g
        else:
            for oh, ow, sl in geo.windows():
                dxp[sl] += g[:, :, oh, ow, None, None]
    return {"X@GRAD": np.ascontiguousarray(dxp[:, :, t:t + h, l:l + w])}


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


def _bn_grad(ins, attrs, with_x):
    x, scale, sm, inv_std, dy = ins["X"], ins["Scale"], ins["SavedMean"], ins["SavedVariance"], ins["Y@GRAD"]
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
    b = attrs["begin_norm_axis"]
    left = int(np.prod(x.shape[:b]))
    return x.reshape(left, -1)


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


def lookup_table_grad(ins, attrs):
    w, ids, dout = ins["W"], ins["Ids"], ins["Out@GRAD"]
    pad = attrs["padding_idx"]
    flat = table_ids(ids, w.shape, pad)
    rows = dout.reshape(-1, w.shape[1])
    if pad >= 0:
        keep = flat != pad
        flat, rows = flat[keep], rows[keep]
    dw = np.zeros(w.shape, dtype=w.dtype)
    np.add.at(dw, flat, rows)
    return {"W@GRAD": dw}
