"""CPU kernels of the pooling ops (ops/pooling.py).

pool2d (max, avg; paddings, ceil_mode): float32/float64 run a numba loop over the windows
(_pool_loops.py); other dtypes the vectorised numpy path of _pool.py, a loop over kernel or output
positions (whichever is fewer) vectorised over the batch and channels. Adaptive windows
(adaptive=True) are _adaptive_pool.py's.

pool3d: a box window is a product of one interval per dim, so pooling runs one dim at a time: a
loop over that dim's output positions, each reducing a slice (sums with a running sum). Max keeps
where each maximum came from, dim by dim, which finds each window's first maximum in row-major
order; its gradient is one bincount. ``windows`` is shared with the CUDA kernels. A pool2d window
geometry the fast loops do not take (PoolGeometry.regular: a ksize below 1, a padding below 0 or not
below ksize, an empty window), all of which Fluid 1.8's loops run, pools as pool3d does (a depth of 1),
with Fluid's values for an empty window: max -FLT_MAX (its loop's start), avg 0 over the window's size
(the product of its clipped extents, which may be 0 or negative)."""

import numpy as np

from . import _adaptive_pool, _pool, _replicas
from ..context import NO_CONTEXT
from ...shapes.conv_plans import PoolGeometry
from .runtime.loops import is_float, lazy, parallel_parts, twin
from ...shapes.pooling import adaptive_attrs, adaptive_max_boxes, box_windows, paddle2_window, spp_levels, windows

_pool_loops = lazy("_pool_loops")


# -- pool2d -----------------------------------------------------------------------------------------

_LOWEST = -3.4028234663852886e38  # -FLT_MAX: Fluid's max pooling of an empty window


def _pool2d_boxes(x_shape, attrs, geo, paddle2):
    """pool2d's windows as a depth-1 pool3d's."""
    depth = (np.zeros(1, np.int64), np.ones(1, np.int64), np.ones(1))
    if geo is None:  # adaptive max pooling, as Fluid's kernels run it (adaptive_max_boxes)
        return [depth] + adaptive_max_boxes(x_shape[2:], attrs)
    inclusive = attrs["pooling_type"] == "avg" and not attrs["exclusive"]
    return [depth] + box_windows(
        x_shape[2:],
        (geo.kh, geo.kw),
        (geo.sh, geo.sw),
        geo.pads,
        (geo.ho, geo.wo),
        inclusive,
        paddle2_window(attrs, paddle2),
    )


def pool2d(ins, attrs, ctx=NO_CONTEXT):
    x = ins["X"]
    if attrs["adaptive"] and attrs["pooling_type"] == "max":
        return {"Out": _pool_boxes(x[:, :, None], _pool2d_boxes(x.shape, attrs, None, False), True)[:, :, 0]}
    if attrs["adaptive"]:
        return _adaptive_pool.pool2d(ins, adaptive_attrs(x.shape, attrs))
    geo = PoolGeometry(x.shape, attrs, ctx.paddle2)
    is_max = attrs["pooling_type"] == "max"
    if not geo.regular:
        return {"Out": _pool_boxes(x[:, :, None], _pool2d_boxes(x.shape, attrs, geo, ctx.paddle2), is_max)[:, :, 0]}
    if is_float(x):
        x = np.ascontiguousarray(x)
        out = np.empty(x.shape[:2] + (geo.ho, geo.wo), dtype=x.dtype)
        name, consts = pool2d_loop(geo, x.shape, is_max, attrs["exclusive"])
        args, loops = (x, *consts, out), _pool_loops()
        if name.startswith("max_pool_2x2"):  # (its numpy replica runs while the loop compiles)
            par = name.endswith("_parallel")
            twin(loops.max_pool_2x2, loops.max_pool_2x2_parallel, par, *args, replica=_replicas.max_pool_2x2)(*args)
        else:
            getattr(loops, name)(*args)
        return {"Out": out}
    return {"Out": _pool.forward(x, geo, is_max, attrs["exclusive"])}


def pool2d_grad(ins, attrs, ctx=NO_CONTEXT):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    adaptive_max = attrs["adaptive"] and attrs["pooling_type"] == "max"
    if attrs["adaptive"] and not adaptive_max:
        return _adaptive_pool.pool2d_grad(ins, adaptive_attrs(x.shape, attrs))
    geo = None if adaptive_max else PoolGeometry(x.shape, attrs, ctx.paddle2)
    if adaptive_max or not geo.regular:
        wins = _pool2d_boxes(x.shape, attrs, geo, ctx.paddle2)
        dx = _pool_boxes_grad(x[:, :, None], dout[:, :, None], wins, attrs["pooling_type"] == "max")
        return {"X@GRAD": dx[:, :, 0]}
    is_max = attrs["pooling_type"] == "max"
    if is_float(x, out, dout):
        dx = np.empty(x.shape, dtype=x.dtype)
        name, reads, consts = pool2d_grad_loop(geo, x.shape, is_max, attrs["exclusive"])
        given = {"X": x, "Out": out, "Out@GRAD": dout}
        args, loops = (*(np.ascontiguousarray(given[r]) for r in reads), *consts, dx), _pool_loops()
        if name.startswith("max_pool_2x2"):
            par = name.endswith("_parallel")
            twin(
                loops.max_pool_2x2_grad,
                loops.max_pool_2x2_grad_parallel,
                par,
                *args,
                replica=_replicas.max_pool_2x2_grad,
            )(*args)
        else:
            getattr(loops, name)(*args)
        return {"X@GRAD": dx}
    return {"X@GRAD": _pool.backward(x, out, dout, geo, is_max, attrs["exclusive"])}


def pool2d_loop(geo, x_shape, is_max, exclusive):
    """The numba loop (_pool_loops.py) of a regular float pool2d over X of ``x_shape`` and the constants
    it takes between X and Out: decided here once, for this kernel and for a planned step's launch
    (launch_forms.pool2d)."""
    if geo.is_2x2_inside(x_shape):
        if is_max:
            par = x_shape[0] > 1 and parallel_parts(int(np.prod(x_shape))) > 1
            return ("max_pool_2x2_parallel" if par else "max_pool_2x2"), (geo.ho, geo.wo)
        return "avg_pool_2x2", (geo.ho, geo.wo)
    window = (geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0], geo.pads[2], geo.ho, geo.wo)
    return ("max_pool", window) if is_max else ("avg_pool", (*window, bool(exclusive)))


def pool2d_grad_loop(geo, x_shape, is_max, exclusive):
    """pool2d_grad's loop, the slots it reads (of X, Out, Out@GRAD, in its order) and its constants
    before X@GRAD: decided once, for this kernel and launch_forms.pool2d_grad."""
    full = ("X", "Out", "Out@GRAD")
    window = (geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0], geo.pads[2])
    if geo.is_2x2_inside(x_shape):
        if is_max:
            par = x_shape[0] > 1 and parallel_parts(int(np.prod(x_shape))) > 1
            return ("max_pool_2x2_grad_parallel" if par else "max_pool_2x2_grad"), full, ()
        return "avg_pool_2x2_grad", ("Out@GRAD",), ()
    if is_max:
        return "max_pool_grad", full, window
    return "avg_pool_grad", ("Out@GRAD",), (*window, bool(exclusive))


def _max_along(a, where, axis, starts, ends):
    """Max over each window along ``axis``, and the flat X index of each maximum (from ``where``; -1 and
    -FLT_MAX for an empty window)."""
    vals, idx = [], []
    for s, e in zip(starts, ends):
        if e <= s:
            shape = a.shape[:axis] + (1,) + a.shape[axis + 1 :]
            vals.append(np.full(shape, _LOWEST, dtype=a.dtype))
            idx.append(np.full(shape, -1, dtype=np.int64))
            continue
        part = np.take(a, np.arange(s, e), axis=axis)
        arg = np.expand_dims(part.argmax(axis=axis), axis)
        vals.append(np.take_along_axis(part, arg, axis))
        idx.append(np.take_along_axis(np.take(where, np.arange(s, e), axis=axis), arg, axis))
    return np.concatenate(vals, axis), np.concatenate(idx, axis)


def _max_pool(x, wins):
    where = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    a = x
    for axis in (4, 3, 2):  # the last dim first: ties go to the first in row-major order
        a, where = _max_along(a, where, axis, *wins[axis - 2][:2])
    return a, where


def _sum_along(a, axis, starts, ends):
    """Sum over each window along ``axis`` (0 for an empty one)."""
    n = a.shape[axis]
    run = np.cumsum(a, axis=axis, dtype=np.float64)
    run = np.concatenate([np.zeros_like(np.take(run, [0], axis=axis)), run], axis=axis)
    sums = np.take(run, np.clip(ends, 0, n), axis=axis) - np.take(run, np.clip(starts, 0, n), axis=axis)
    sums[(slice(None),) * axis + (ends <= starts,)] = 0
    return sums


def _divisor(wins):
    d, h, w = (win[2] for win in wins)
    return d[:, None, None] * h[None, :, None] * w[None, None, :]


def _pool_boxes(x, wins, is_max):
    if is_max:
        return _max_pool(x, wins)[0]
    a = x
    for axis in (2, 3, 4):
        a = _sum_along(a, axis, *wins[axis - 2][:2])
    with np.errstate(divide="ignore", invalid="ignore"):  # Fluid's 0 / 0 of an empty window: NaN
        return (a / _divisor(wins)).astype(x.dtype)


def pool3d(ins, attrs, ctx=NO_CONTEXT):
    x = ins["X"]
    return {"Out": _pool_boxes(x, windows(x.shape, attrs, ctx.paddle2), attrs["pooling_type"] == "max")}


def _spread_along(g, axis, starts, ends, size):
    """The transpose of _sum_along: each output's value added over its window (a difference array)."""
    shape = list(g.shape)
    shape[axis] = size + 1
    diff = np.zeros(shape, dtype=np.float64)
    lead = (slice(None),) * axis
    for i, (s, e) in enumerate(zip(starts, ends)):
        if e <= s:
            continue
        one = np.take(g, [i], axis=axis)
        diff[lead + (slice(s, s + 1),)] += one
        diff[lead + (slice(e, e + 1),)] -= one
    return np.take(np.cumsum(diff, axis=axis), np.arange(size), axis=axis)


def _pool_boxes_grad(x, dout, wins, is_max):
    if is_max:
        _, where = _max_pool(x, wins)
        hit = where.reshape(-1) >= 0  # an empty window's gradient goes nowhere
        dx = np.bincount(where.reshape(-1)[hit], weights=dout.reshape(-1)[hit].astype(np.float64), minlength=x.size)
        return dx.reshape(x.shape).astype(x.dtype)
    div = _divisor(wins)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(div != 0, dout / div, 0.0)  # a divisor of 0 is an empty window's
    for axis in (2, 3, 4):
        g = _spread_along(g, axis, *wins[axis - 2][:2], x.shape[axis])
    return g.astype(x.dtype)


def pool3d_grad(ins, attrs, ctx=NO_CONTEXT):
    x, dout = ins["X"], ins["Out@GRAD"]
    wins = windows(x.shape, attrs, ctx.paddle2)
    return {"X@GRAD": _pool_boxes_grad(x, dout, wins, attrs["pooling_type"] == "max")}


# -- spp: a pyramid of pool2d levels, each flattened, joined along dim 1 ------------------------------


def spp(ins, attrs):
    x = ins["X"]
    outs = [pool2d({"X": x}, level)["Out"].reshape(x.shape[0], -1) for level in spp_levels(x.shape, attrs)]
    return {"Out": np.concatenate(outs, axis=1)}


def spp_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    dx, start = np.zeros(x.shape, x.dtype), 0
    for p, level in enumerate(spp_levels(x.shape, attrs)):
        width, shape = x.shape[1] * 4**p, x.shape[:2] + (2**p, 2**p)
        part = slice(start, start + width)
        dx += pool2d_grad(
            {
                "X": x,
                "Out": np.ascontiguousarray(out[:, part]).reshape(shape),
                "Out@GRAD": np.ascontiguousarray(dout[:, part]).reshape(shape),
            },
            level,
        )["X@GRAD"]
        start += width
    return {"X@GRAD": dx}
