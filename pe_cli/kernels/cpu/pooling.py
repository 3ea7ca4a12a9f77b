"""CPU kernels of the pooling ops (ops/pooling.py).

pool2d (max, avg; paddings, ceil_mode): float32/float64 run a numba loop over the windows
(_pool_loops.py); other dtypes the vectorised numpy path of _pool.py, a loop over kernel or output
positions (whichever is fewer) vectorised over the batch and channels. Adaptive windows
(adaptive=True) are _adaptive_pool.py's.

pool3d: a box window is a product of one interval per dim, so pooling runs one dim at a time: a
loop over that dim's output positions, each reducing a slice (sums with a running sum). Max keeps
where each maximum came from, dim by dim, which finds each window's first maximum in row-major
order; its gradient is one bincount. ``windows`` is shared with the CUDA kernels."""
import numpy as np

from . import _adaptive_pool, _pool, _replicas
from ...base.shapes import pool3d_geometry, pool3d_out
from ..common import PoolGeometry
from ._numba import is_float, lazy, parallel_parts, twin

_pool_loops = lazy("_pool_loops")


# -- pool2d -----------------------------------------------------------------------------------------

def pool2d(ins, attrs):
    if attrs["adaptive"]:
        return _adaptive_pool.pool2d(ins, attrs)
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
        return _adaptive_pool.pool2d_grad(ins, attrs)
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


def windows(x_shape, attrs):
    """Per spatial dim: (starts, ends) of the windows, clipped to X; and the avg divisor per output
    position of each dim (multiplied together: the window volume, or ksize's with exclusive off)."""
    dhw = list(x_shape[2:])
    out = pool3d_out(attrs, dhw)
    result = []
    if attrs["adaptive"]:
        for n, k in zip(dhw, out):
            i = np.arange(k, dtype=np.int64)
            s, e = (i * n) // k, -((-(i + 1) * n) // k)
            result.append((s, e, (e - s).astype(np.float64)))
        return result
    ksize, strides, pads = pool3d_geometry(attrs, dhw)
    inclusive = attrs["pooling_type"] == "avg" and not attrs["exclusive"]
    for i, (n, k, s, m) in enumerate(zip(dhw, ksize, strides, out)):
        start = np.arange(m, dtype=np.int64) * s - pads[2 * i]
        end = np.minimum(start + k, n)
        start = np.maximum(start, 0)
        result.append((start, end, np.full(m, float(k)) if inclusive else (end - start).astype(np.float64)))
    return result


def _max_along(a, where, axis, starts, ends):
    """Max over each window along ``axis``, and the flat X index of each maximum (from ``where``)."""
    vals, idx = [], []
    for s, e in zip(starts, ends):
        part = np.take(a, np.arange(s, e), axis=axis)
        arg = np.expand_dims(part.argmax(axis=axis), axis)
        vals.append(np.take_along_axis(part, arg, axis))
        idx.append(np.take_along_axis(np.take(where, np.arange(s, e), axis=axis), arg, axis))
    return np.concatenate(vals, axis), np.concatenate(idx, axis)


def _max_pool(x, wins):
    where = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    a = x
    for axis in (4, 3, 2):                 # the last dim first: ties go to the first in row-major order
        a, where = _max_along(a, where, axis, *wins[axis - 2][:2])
    return a, where


def _sum_along(a, axis, starts, ends):
    run = np.cumsum(a, axis=axis, dtype=np.float64)
    run = np.concatenate([np.zeros_like(np.take(run, [0], axis=axis)), run], axis=axis)
    return np.take(run, ends, axis=axis) - np.take(run, starts, axis=axis)


def _divisor(wins):
    d, h, w = (win[2] for win in wins)
    return d[:, None, None] * h[None, :, None] * w[None, None, :]


def pool3d(ins, attrs):
    x = ins["X"]
    wins = windows(x.shape, attrs)
    if attrs["pooling_type"] == "max":
        return {"Out": _max_pool(x, wins)[0]}
    a = x
    for axis in (2, 3, 4):
        a = _sum_along(a, axis, *wins[axis - 2][:2])
    return {"Out": (a / _divisor(wins)).astype(x.dtype)}


def _spread_along(g, axis, starts, ends, size):
    """The transpose of _sum_along: each output's value added over its window (a difference array)."""
    shape = list(g.shape)
    shape[axis] = size + 1
    diff = np.zeros(shape, dtype=np.float64)
    lead = (slice(None),) * axis
    for i, (s, e) in enumerate(zip(starts, ends)):
        one = np.take(g, [i], axis=axis)
        diff[lead + (slice(s, s + 1),)] += one
        diff[lead + (slice(e, e + 1),)] -= one
    return np.take(np.cumsum(diff, axis=axis), np.arange(size), axis=axis)


def pool3d_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    wins = windows(x.shape, attrs)
    if attrs["pooling_type"] == "max":
        _, where = _max_pool(x, wins)
        dx = np.bincount(where.reshape(-1), weights=dout.reshape(-1).astype(np.float64), minlength=x.size)
        return {"X@GRAD": dx.reshape(x.shape).astype(x.dtype)}
    g = dout / _divisor(wins)
    for axis in (2, 3, 4):
        g = _spread_along(g, axis, *wins[axis - 2][:2], x.shape[axis])
    return {"X@GRAD": g.astype(x.dtype)}


# -- spp: a pyramid of pool2d levels, each flattened, joined along dim 1 ------------------------------

def spp_levels(x_shape, attrs):
    """pool2d's attributes of each level p: 2^p bins, windows ceil(H / 2^p) (as many strides apart), padded
    by (window * 2^p - H + 1) / 2, padding left out of averages."""
    h, w = x_shape[2], x_shape[3]
    levels = []
    for p in range(attrs["pyramid_height"]):
        bins = 2 ** p
        kh, kw = -(-h // bins), -(-w // bins)
        levels.append({"pooling_type": attrs["pooling_type"], "ksize": [kh, kw], "strides": [kh, kw],
                       "paddings": [(kh * bins - h + 1) // 2, (kw * bins - w + 1) // 2], "global_pooling": False,
                       "exclusive": True, "adaptive": False, "ceil_mode": False, "padding_algorithm": "EXPLICIT",
                       "data_format": "NCHW"})
    return levels


def spp(ins, attrs):
    x = ins["X"]
    outs = [pool2d({"X": x}, level)["Out"].reshape(x.shape[0], -1) for level in spp_levels(x.shape, attrs)]
    return {"Out": np.concatenate(outs, axis=1)}


def spp_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    dx, start = np.zeros(x.shape, x.dtype), 0
    for p, level in enumerate(spp_levels(x.shape, attrs)):
        width, shape = x.shape[1] * 4 ** p, x.shape[:2] + (2 ** p, 2 ** p)
        part = slice(start, start + width)
        dx += pool2d_grad({"X": x, "Out": np.ascontiguousarray(out[:, part]).reshape(shape),
                           "Out@GRAD": np.ascontiguousarray(dout[:, part]).reshape(shape)}, level)["X@GRAD"]
        start += width
    return {"X@GRAD": dx}
