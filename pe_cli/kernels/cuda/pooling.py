"""CUDA twins of kernels/cpu/pooling.py. pool2d is direct: one thread per output (max-pool's gradient
scatters to each window's first maximum); adaptive windows are _adaptive_pool.py's. pool3d copies the
CPU's windows (start, end and divisor per output position of each dim) over; one thread per output
walks its box; the gradient adds atomically (windows may overlap), max's to the box's first maximum
in row-major order."""

import numpy as np
from numba import cuda

from .. import kernel_of
from ...shapes.conv_plans import PoolGeometry
from . import _adaptive_pool, _pool, elementwise, manipulation, runtime as rt
from ._host import given_cpu_kernel, on_host
from ..context import NO_CONTEXT
from ._launch import flat, grid, zeros
from .launcher import jit_kernel
from ...shapes.pooling import adaptive_attrs, spp_grad_meta, spp_levels, windows


# -- pool2d -----------------------------------------------------------------------------------------


def _pool_args(x, attrs, paddle2):
    geo = PoolGeometry(tuple(x.shape), attrs, paddle2)
    h, w = x.shape[2], x.shape[3]
    return geo, (h, w, geo.ho, geo.wo, geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0], geo.pads[2])


def pool2d(ins, attrs, cpu_pool2d, ctx=NO_CONTEXT):
    if attrs["adaptive"] and attrs["pooling_type"] == "max":  # Fluid's plain windows (the CPU's)
        return on_host(cpu_pool2d)(ins, attrs)
    if attrs["adaptive"]:
        return _adaptive_pool.pool2d(ins, adaptive_attrs(tuple(ins["X"].shape), attrs))
    x = ins["X"]
    geo, args = _pool_args(x, attrs, ctx.paddle2)
    if not geo.regular:  # Fluid's windows the device loop does not take: the CPU's, on the host
        return on_host(cpu_pool2d)(ins, attrs)
    out = rt.empty((x.shape[0], x.shape[1], geo.ho, geo.wo), x.dtype)
    if out.size:
        _pool.pool[grid(out.size)](flat(x), flat(out), *args, attrs["pooling_type"] == "max", bool(attrs["exclusive"]))
    return {"Out": out}


def pool2d_grad(ins, attrs, cpu_pool2d_grad, ctx=NO_CONTEXT):
    if attrs["adaptive"] and attrs["pooling_type"] == "max":
        return on_host(cpu_pool2d_grad)(ins, attrs)
    if attrs["adaptive"]:
        return _adaptive_pool.pool2d_grad(ins, adaptive_attrs(tuple(ins["X"].shape), attrs))
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    geo, args = _pool_args(x, attrs, ctx.paddle2)
    if not geo.regular:
        return on_host(cpu_pool2d_grad)(ins, attrs)
    if attrs["pooling_type"] == "max":
        dx = zeros(x.shape, x.dtype)
        if out.size:
            _pool.max_pool_grad[grid(out.size)](flat(x), flat(out), flat(dout), flat(dx), *args)
    else:
        dx = rt.empty(x.shape, x.dtype)
        if dx.size:
            _pool.avg_pool_grad[grid(dx.size)](flat(dout), flat(dx), *args, bool(attrs["exclusive"]))
    return {"X@GRAD": dx}


# -- pool3d -----------------------------------------------------------------------------------------


def _device_windows(x, attrs, paddle2):
    wins = windows(tuple(x.shape), attrs, paddle2)
    arrays = []
    for s, e, div in wins:
        arrays += [
            rt.to_device(np.ascontiguousarray(s)),
            rt.to_device(np.ascontiguousarray(e)),
            rt.to_device(np.ascontiguousarray(div)),
        ]
    return arrays, tuple(len(w[0]) for w in wins)


@jit_kernel
def _pool3d(x, out, dout, dx, ds, de, dd, hs, he, hd, ws, we, wd, d, h, w, od, oh, ow, is_max, backward):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    total = od * oh * ow
    while i < out.size:
        q = i % total
        base = (i // total) * d * h * w
        a, b, c = q // (oh * ow), (q // ow) % oh, q % ow
        best = 0.0
        at = -1
        for z in range(ds[a], de[a]):
            for y in range(hs[b], he[b]):
                for xx in range(ws[c], we[c]):
                    j = base + (z * h + y) * w + xx
                    if is_max:
                        if at < 0 or x[j] > best:
                            best = x[j]
                            at = j
                    elif backward:
                        cuda.atomic.add(dx, j, dout[i] / (dd[a] * hd[b] * wd[c]))
                    else:
                        best += x[j]
        if backward:
            if is_max and at >= 0:
                cuda.atomic.add(dx, at, dout[i])
        elif is_max:
            out[i] = best
        else:
            out[i] = best / (dd[a] * hd[b] * wd[c])
        i += step


def _regular_boxes(x, attrs, paddle2):
    """Whether every window has elements and a positive divisor (the device loop's windows); Fluid's
    others pool on the host, by the CPU's kernels."""
    return all((e > s).all() and (div > 0).all() for s, e, div in windows(tuple(x.shape), attrs, paddle2))


def pool3d(ins, attrs, cpu_pool3d, ctx=NO_CONTEXT):
    x = ins["X"]
    if not _regular_boxes(x, attrs, ctx.paddle2):
        return on_host(cpu_pool3d)(ins, attrs)
    wins, (od, oh, ow) = _device_windows(x, attrs, ctx.paddle2)
    out = rt.empty(tuple(x.shape[:2]) + (od, oh, ow), x.dtype)
    if out.size:
        _pool3d[grid(out.size)](
            flat(x),
            flat(out),
            flat(out),
            flat(out),
            *wins,
            *tuple(x.shape)[2:],
            od,
            oh,
            ow,
            attrs["pooling_type"] == "max",
            False,
        )
    return {"Out": out}


def pool3d_grad(ins, attrs, cpu_pool3d_grad, ctx=NO_CONTEXT):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    if not _regular_boxes(x, attrs, ctx.paddle2):
        return on_host(cpu_pool3d_grad)(ins, attrs)
    wins, (od, oh, ow) = _device_windows(x, attrs, ctx.paddle2)
    dx = zeros(x.shape, x.dtype)
    if out.size:
        _pool3d[grid(out.size)](
            flat(x),
            flat(out),
            flat(dout),
            flat(dx),
            *wins,
            *tuple(x.shape)[2:],
            od,
            oh,
            ow,
            attrs["pooling_type"] == "max",
            True,
        )
    return {"X@GRAD": dx}


# -- spp: the CPU's levels, each by pool2d's kernels here, joined by concat's -----------------------------


def _first_bins(pooled, bins):
    """A level's pooled [N, C, h, w] cut to its first ``bins`` x ``bins`` positions (h or w is 2^p + 1 where X's H
    or W is below 2^p by an odd count), as the CPU's out-kernel and Paddle 2.6.2's spp keep them."""
    for axis in (2, 3):
        if pooled.shape[axis] != bins:
            pooled = manipulation.take_along(pooled, [bins, pooled.shape[axis] - bins], axis)[0]
    return pooled


def spp(ins, attrs):
    x = ins["X"]
    pool2d = kernel_of("cuda", "pooling", "pool2d")  # as the registry finds it: irregular windows on the host
    outs = [
        _first_bins(pool2d({"X": x}, level)["Out"], 2**p).reshape(x.shape[0], -1)
        for p, level in enumerate(spp_levels(x.shape, attrs))
    ]
    return manipulation.concat({"X": outs}, {"axis": 1})


def spp_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    spp_grad_meta(attrs, {"X": x, "Out": out, "Out@GRAD": dout}, None)  # refuses what the CPU's rule refuses
    levels = spp_levels(x.shape, attrs)
    widths = [x.shape[1] * 4**p for p in range(len(levels))]
    outs = manipulation.split({"X": out}, {"axis": 1, "sections": widths, "num": 0})["Out"]
    douts = manipulation.split({"X": dout}, {"axis": 1, "sections": widths, "num": 0})["Out"]
    dx, pool2d_grad = None, kernel_of("cuda", "pooling", "pool2d_grad")
    for p, level in enumerate(levels):
        shape = tuple(x.shape[:2]) + (2**p, 2**p)
        part = pool2d_grad({"X": x, "Out": outs[p].reshape(shape), "Out@GRAD": douts[p].reshape(shape)}, level)[
            "X@GRAD"
        ]
        dx = part if dx is None else elementwise.sum({"X": [dx, part]}, {})["Out"]
    return {"X@GRAD": dx}


# Fluid's windows the device loops do not take (and adaptive max-pooling): the CPU's kernels, on the host
HOST_OPS = {
    "pool2d": given_cpu_kernel(pool2d),
    "pool2d_grad": given_cpu_kernel(pool2d_grad),
    "pool3d": given_cpu_kernel(pool3d),
    "pool3d_grad": given_cpu_kernel(pool3d_grad),
}
