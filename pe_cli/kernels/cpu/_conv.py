"""Helpers of the conv2d kernels in convolution.py: numpy's im2col for dtypes numba is not compiled for,
the per-sample column views and buffers of the numba paths, and when the wide-columns path applies
(_wide_loops.py)."""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import _conv_replicas
from ..common import pad
from .runtime.loops import lazy, twin
from .runtime.loops import parallel_threads as _numba_parallel_threads

_loops = lazy("_conv_loops")
_wide = lazy("_wide_loops")


def im2col(x, geo):
    """[groups, C/groups*kh*kw, N*Ho*Wo]: rows ordered (c, i, j) like the filter, columns (n, ho, wo)."""
    n, c = x.shape[:2]
    xp = pad(x, geo.pads, 0)
    s0, s1, s2, s3 = xp.strides
    view = as_strided(
        xp,
        (c, geo.kh, geo.kw, n, geo.ho, geo.wo),
        (s1, s2 * geo.dh, s3 * geo.dw, s0, s2 * geo.sh, s3 * geo.sw),
        writeable=False,
    )
    return view.reshape(geo.groups, (c // geo.groups) * geo.kh * geo.kw, n * geo.ho * geo.wo)


def out_as_matrix(dout, geo):
    """Output@GRAD [N, M, Ho, Wo] -> [groups, M/groups, N*Ho*Wo]."""
    n, m = dout.shape[:2]
    return dout.transpose(1, 0, 2, 3).reshape(geo.groups, m // geo.groups, n * geo.ho * geo.wo)


def parallel(n):
    """Threads for a convolution over n samples: the device's share when it has several (and the
    samples to spread), else 1 (the serial loop)."""
    return _numba_parallel_threads() if n > 1 else 1


FILTER_RUNS = 16  # the filter gradient sums the samples in this many fixed runs (then the runs)


def buffers(par, geo, x):
    """A columns buffer [C*kh*kw, Ho*Wo] per thread: a sample's columns stay in L2 between im2col and
    its GEMM (the whole batch's would not)."""
    return np.empty((par, x.shape[1] * geo.kh * geo.kw, geo.ho * geo.wo), dtype=x.dtype)


WIDE_MAX_SPAN = 2.0  # the wide path's GEMM at most this many times im2col's columns (Wp / Wo)


def wide_applies(geo):
    """True when conv2d takes the wide-columns path (_wide_loops.py): stride 1 and no dilation (each
    row of columns one run of the padded plane), a filter wider or taller than 1x1 or padded (a
    1x1 unpadded one needs no columns), and padded rows at most ``WIDE_MAX_SPAN`` times the output's
    (the GEMM's extra columns)."""
    return (
        (geo.sh, geo.sw, geo.dh, geo.dw) == (1, 1, 1, 1)
        and not geo.is_pointwise()
        and geo.wo + geo.kw - 1 <= WIDE_MAX_SPAN * geo.wo
    )


def wide_args(geo):
    """The geometry as the wide loops take it."""
    return geo.groups, geo.kh, geo.kw, geo.pads[0], geo.pads[2], geo.ho, geo.wo


def wide_buffers(par, geo, x, m, zero_output=False):
    """One flat buffer per thread: the padded planes and their slack, the wide columns, the wide
    output [M, Ho*Wp] (zeroed for the gradients: only its valid columns are written)."""
    c, hp, wp = x.shape[1], geo.ho + geo.kh - 1, geo.wo + geo.kw - 1
    wide_at = c * hp * wp + geo.kw + c * geo.kh * geo.kw * geo.ho * wp
    buf = np.empty((par, wide_at + m * geo.ho * wp), dtype=x.dtype)
    if zero_output:
        buf[:, wide_at:] = 0
    return buf


def cols(x, geo):
    """x as im2col columns per sample, [N, G, C/G*kh*kw, Ho*Wo] (a view of x for a 1x1 stride-1
    unpadded filter, which needs no copy)."""
    n, c = x.shape[:2]
    x = np.ascontiguousarray(x)
    if geo.is_pointwise():
        return x.reshape(n, geo.groups, c // geo.groups, geo.ho * geo.wo)
    out = np.empty((n, c * geo.kh * geo.kw, geo.ho * geo.wo), dtype=x.dtype)
    _loops().im2col(x, geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0], geo.pads[2], geo.dh, geo.dw, geo.ho, geo.wo, out)
    return out.reshape(n, geo.groups, -1, geo.ho * geo.wo)


def dout_per_sample(dout, geo):
    """Output@GRAD [N, M, Ho, Wo] as [N, G, M/G, Ho*Wo] (a view when contiguous)."""
    n, m = dout.shape[:2]
    return np.ascontiguousarray(dout).reshape(n, geo.groups, m // geo.groups, geo.ho * geo.wo)


def col2im(dcols, geo, out):
    """The adjoint of im2col for numpy's path: dcols [G, C/G*kh*kw, N*Ho*Wo] -> ``out`` [N, C, H, W], as kh*kw
    strided adds into the padded input."""
    (n, c, h, wd), dtype = out.shape, out.dtype
    dcols = dcols.reshape(c, geo.kh, geo.kw, n, geo.ho, geo.wo)
    t, b, l, r = geo.pads
    dxp = np.zeros((n, c, h + t + b, wd + l + r), dtype=dtype)
    hspan, wspan = geo.sh * (geo.ho - 1) + 1, geo.sw * (geo.wo - 1) + 1
    for i in range(geo.kh):
        hi = i * geo.dh
        for j in range(geo.kw):
            wj = j * geo.dw
            dxp[:, :, hi : hi + hspan : geo.sh, wj : wj + wspan : geo.sw] += dcols[:, i, j].transpose(1, 0, 2, 3)
    np.copyto(out, dxp[:, :, t : t + h, l : l + wd])


def per_sample_loops(name, par, geo, x, m):
    """(serial loop, parallel twin, replica, geometry arguments, per-thread scratch) of conv loop ``name``
    (forward, grad_filter or grad_input) over samples like ``x`` (an array, or launches.Shape) on ``par``
    threads: the wide columns' where they apply (wide_applies), else im2col's."""
    if wide_applies(geo):
        loops = _wide()
        # the gradients' wide Output@GRAD keeps zeros in its extra columns
        scratch = wide_buffers(par, geo, x, m, zero_output=name != "forward")
        replica, geometry = getattr(_conv_replicas, "wide_" + name), wide_args(geo)
        return getattr(loops, name), getattr(loops, name + "_parallel"), replica, geometry, scratch
    loops, loop = _loops(), "conv_" + name
    replica, geometry = getattr(_conv_replicas, loop), geo.loop_args()
    return getattr(loops, loop), getattr(loops, loop + "_parallel"), replica, geometry, buffers(par, geo, x)


def per_sample(name, gemm, a, b, out, geo, x, m):
    """Runs conv loop ``name`` (forward, grad_filter or grad_input) on (a, b) into ``out``, sample by
    sample (per_sample_loops); its parallel twin when the device has threads for the samples, its
    replica while it compiles."""
    par = parallel(x.shape[0])
    serial, par_loop, replica, geometry, scratch = per_sample_loops(name, par, geo, x, m)
    args = (gemm, a, b, *geometry, out, scratch)
    twin(serial, par_loop, par > 1, *args, replica=replica)(*args)
