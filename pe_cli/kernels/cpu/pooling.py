"""CPU kernels of the pooling ops (ops/pooling.py).

pool2d, pool3d and their gradients are structured kernels: their meta rules (shapes/pooling.py) choose the
variant (and pool3d's windows) once per shape signature, their out-kernels here (``pool2d_out``, ...)
compute it into the buffers they are handed, and a planned step launches pool2d's loops (``loop_launches``). float32/float64
run a numba loop over the windows (_pool_loops.py); other dtypes the vectorised numpy path of _pool.py, a
loop over kernel or output positions (whichever is fewer) vectorised over the batch and channels. Adaptive
windows (adaptive=True) are _adaptive_pool.py's. ``pool2d`` and ``pool2d_grad`` are the same two as
kernels (kernels/structured.adapter: spp's levels, the blocked kernels).

pool3d: a box window is a product of one interval per dim, so pooling runs one dim at a time: a
loop over that dim's output positions, each reducing a slice (sums with a running sum). Max keeps
where each maximum came from, dim by dim, which finds each window's first maximum in row-major
order; its gradient is one bincount. ``windows`` is shared with the CUDA kernels. A pool2d window
geometry the fast loops do not take (PoolGeometry.regular: a ksize below 1, a padding below 0 or not
below ksize, an empty window), all of which Fluid 1.8's loops run, pools as pool3d does (a depth of 1),
with Fluid's values for an empty window: max -FLT_MAX (its loop's start), avg 0 over the window's size
(the product of its clipped extents, which may be 0 or negative)."""

import math

import numpy as np

from . import _adaptive_pool, _pool, _replicas
from ..structured import adapter, fresh_output
from .launches import Launch, by_variant, one, twin_launch
from .runtime.loops import lazy, parallel_parts, twin
from ...shapes.pooling import pool2d_grad_meta, pool2d_meta, pool3d_grad_meta, pool3d_meta

_pool_loops = lazy("_pool_loops")


# -- pool2d: structured kernels (meta rules in shapes/pooling.py) -------------------------------------

_LOWEST = -3.4028234663852886e38  # -FLT_MAX: Fluid's max pooling of an empty window


def _parallel(x_shape):
    """Whether the unrolled 2x2 max loops run their parallel twin (the same bits): a batch large enough."""
    return x_shape[0] > 1 and parallel_parts(math.prod(x_shape)) > 1


def _pool2d_loop(ins, outs, attrs, meta):
    x, out = np.ascontiguousarray(ins["X"]), outs["Out"]
    args, loops = (x, *meta.args, out), _pool_loops()
    if meta.loop == "max_pool_2x2":  # (its numpy replica runs while the loop compiles)
        par = _parallel(x.shape)
        twin(loops.max_pool_2x2, loops.max_pool_2x2_parallel, par, *args, replica=_replicas.max_pool_2x2)(*args)
    else:
        getattr(loops, meta.loop)(*args)


def _pool2d_numpy(ins, outs, attrs, meta):
    outs["Out"] = fresh_output(_pool.forward(ins["X"], *meta.args), meta.outputs["Out"], tuple(ins.values()))


def _pool2d_boxes(ins, outs, attrs, meta):
    wins, is_max = meta.args
    outs["Out"] = fresh_output(
        _pool_boxes(ins["X"][:, :, None], wins, is_max)[:, :, 0], meta.outputs["Out"], tuple(ins.values())
    )


def _pool2d_adaptive(ins, outs, attrs, meta):
    outs["Out"] = fresh_output(
        _adaptive_pool.pool2d(ins, meta.args[0])["Out"], meta.outputs["Out"], tuple(ins.values())
    )


def _pool2d_grad_loop(ins, outs, attrs, meta):
    dx = outs["X@GRAD"]
    args, loops = (*(np.ascontiguousarray(ins[r]) for r in meta.loop_inputs), *meta.args, dx), _pool_loops()
    if meta.loop == "max_pool_2x2_grad":
        serial, parallel = loops.max_pool_2x2_grad, loops.max_pool_2x2_grad_parallel
        twin(serial, parallel, _parallel(dx.shape), *args, replica=_replicas.max_pool_2x2_grad)(*args)
    else:
        getattr(loops, meta.loop)(*args)


def _pool2d_grad_numpy(ins, outs, attrs, meta):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    outs["X@GRAD"] = fresh_output(_pool.backward(x, out, dout, *meta.args), meta.outputs["X@GRAD"], tuple(ins.values()))


def _pool2d_grad_boxes(ins, outs, attrs, meta):
    wins, is_max = meta.args
    dx = _pool_boxes_grad(ins["X"][:, :, None], ins["Out@GRAD"][:, :, None], wins, is_max)
    outs["X@GRAD"] = fresh_output(dx[:, :, 0], meta.outputs["X@GRAD"], tuple(ins.values()))


def _pool2d_grad_adaptive(ins, outs, attrs, meta):
    outs["X@GRAD"] = fresh_output(
        _adaptive_pool.pool2d_grad(ins, meta.args[0])["X@GRAD"], meta.outputs["X@GRAD"], tuple(ins.values())
    )


def loop_launches(op, table, meta):
    """A planned step's launch of the "loop" variant: the loop ``meta.loop`` (the 2x2 max loops' parallel
    twin where the out-kernel runs it) over ``meta.loop_inputs``, its constants ``meta.args``, its output;
    None for another variant (a Python launch of the out-kernel)."""
    (slot,) = meta.outputs
    names, out = [one(op, s) for s in meta.loop_inputs], one(op, slot, "outputs")
    if meta.variant != "loop" or out is None or None in names:
        return None
    loops, name = _pool_loops(), meta.loop
    args = [*(("var", n, None) for n in names), *(("const", c) for c in meta.args), ("var", out, None)]
    if name.startswith("max_pool_2x2") and _parallel(table[one(op, "X")][0]):
        return [twin_launch(getattr(loops, name), getattr(loops, name + "_parallel"), True, args, writes=[out])]
    return [Launch(getattr(loops, name), args, writes=[out])]


pool2d_out = by_variant(
    "pool2d_out", loop_launches, loop=_pool2d_loop, numpy=_pool2d_numpy, boxes=_pool2d_boxes, adaptive=_pool2d_adaptive
)
pool2d_grad_out = by_variant(
    "pool2d_grad_out",
    loop_launches,
    loop=_pool2d_grad_loop,
    numpy=_pool2d_grad_numpy,
    boxes=_pool2d_grad_boxes,
    adaptive=_pool2d_grad_adaptive,
)
# the same two as kernels (spp's levels, the blocked kernels, tests)
pool2d = adapter(pool2d_meta, pool2d_out, "pool2d")
pool2d_grad = adapter(pool2d_grad_meta, pool2d_grad_out, "pool2d_grad")


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


def _pool3d_boxes(ins, outs, attrs, meta):
    outs["Out"] = fresh_output(_pool_boxes(ins["X"], *meta.args), meta.outputs["Out"], tuple(ins.values()))


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


def _pool3d_grad_boxes(ins, outs, attrs, meta):
    outs["X@GRAD"] = fresh_output(
        _pool_boxes_grad(ins["X"], ins["Out@GRAD"], *meta.args), meta.outputs["X@GRAD"], tuple(ins.values())
    )


pool3d_out = by_variant("pool3d_out", loop_launches, boxes=_pool3d_boxes)
pool3d_grad_out = by_variant("pool3d_grad_out", loop_launches, boxes=_pool3d_grad_boxes)
pool3d = adapter(pool3d_meta, pool3d_out, "pool3d")  # (CUDA's host fallback)
pool3d_grad = adapter(pool3d_grad_meta, pool3d_grad_out, "pool3d_grad")


# -- spp: a pyramid of pool2d levels, each flattened, joined along dim 1 (out-kernels of shapes/pooling.py's
# spp_meta and spp_grad_meta: each level pooled by pool2d's out-kernels on the Meta decided for it) ----------


def spp(ins, outs, attrs, meta):
    x, out, start = ins["X"], outs["Out"], 0
    for p, (level, level_meta) in enumerate(meta.args):
        pooled = {} if level_meta.fresh else {"Out": outs[f"@level{p}"]}
        pool2d_out({"X": x}, pooled, level, level_meta)
        bins, width = 2**p, x.shape[1] * 4**p  # (the first 2^p x 2^p positions where it pooled one more)
        out[:, start : start + width] = pooled["Out"][:, :, :bins, :bins].reshape(x.shape[0], width)
        start += width


def spp_grad(ins, outs, attrs, meta):
    x, out, dout, dx, start = ins["X"], ins["Out"], ins["Out@GRAD"], outs["X@GRAD"], 0
    dx.fill(0)
    for p, (level, level_meta) in enumerate(meta.args):
        width, shape = x.shape[1] * 4**p, x.shape[:2] + (2**p, 2**p)
        part = slice(start, start + width)
        level_ins = {
            "X": x,
            "Out": np.ascontiguousarray(out[:, part]).reshape(shape),
            "Out@GRAD": np.ascontiguousarray(dout[:, part]).reshape(shape),
        }
        grad = {} if level_meta.fresh else {"X@GRAD": outs[f"@level{p}"]}
        pool2d_grad_out(level_ins, grad, level, level_meta)
        dx += grad["X@GRAD"]
        start += width
