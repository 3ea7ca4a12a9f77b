"""Elementwise kernels. Y is reshaped so numpy broadcasting implements Fluid's ``axis`` rule;
gradients sum over the broadcast dims back to each input's shape.

The bias add (Y matching a run of X's dims: X seen as [pre, n, post], Y as [n]) is a numba loop for
float32/float64, forward and backward (_pointwise_loops.py): numpy's broadcast add over the middle
axis is 2-3x slower, and its gradient a strided reduction. The add of two large arrays of the same
shape (a residual connection, a gradient sum) is split over the device's threads (``add_same``), and
so are add, sub and mul of a large X and a Y of its shape, one value a row or one row for all
(``row_view``, _broadcast_loops.py: the beam search's scores and masks).
Also the sum of several tensors (``sum``, a kernel of that name: the builtin is never called here;
up to four float arrays a pass) and scale (one pass for floats; both _elementwise_loops.py), clip,
clip_by_norm and the isfinite/isinf/isnan checks."""

import functools
import math

import numpy as np

from ...base.errors import PeError
from ...base.selected_rows import SelectedRows
from . import _replicas, control_flow
from ..common import conj, div_grad_grad
from ..value_checks import check_divisor
from ._int_division import floored_div, remainder, truncated_div
from .selected_rows import sum_with_sparse
from .runtime.loops import (
    add_same,
    flat,
    is_float,
    lazy,
    out_buffer,
    parallel_parts,
    run_in_parts,
    twin,
)
from ..context import NO_CONTEXT

_loops = lazy("_pointwise_loops")
_broadcast = lazy("_broadcast_loops")
_elementwise = lazy("_elementwise_loops")


def align(x, y, axis):
    """Y reshaped to broadcast against X under Fluid's axis rule (no copy)."""
    if y.ndim >= x.ndim or axis == -1 or axis == x.ndim - y.ndim:
        return y
    return y.reshape((1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim))


def align_both(x, y, axis):
    """(X, Y) reshaped to broadcast against each other under Fluid's axis rule: the one of fewer dims
    placed in the other from ``axis`` on (X may be the smaller: Out then has Y's shape)."""
    return align(y, x, axis), align(x, y, axis)


def unbroadcast(grad, shape):
    """Sums ``grad`` over the dims that were broadcast to reach it from ``shape``."""
    if grad.shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and grad.shape[i + lead] != 1)
    return grad.sum(axis=axes, keepdims=False).reshape(shape) if axes else grad.reshape(shape)


def mid_run(x, y, axis):
    """(pre, n, post) when Y's shape is exactly X's dims from ``axis`` on (-1: aligned to the end)
    and Y is smaller than X: X is then [pre, n, post] and Y [n]. None otherwise."""
    if y.ndim >= x.ndim:
        return None
    start = x.ndim - y.ndim if axis == -1 else axis
    if x.shape[start : start + y.ndim] != y.shape:
        return None
    return math.prod(x.shape[:start]), y.size, math.prod(x.shape[start + y.ndim :])


def elementwise_add(ins, attrs, ctx=NO_CONTEXT):
    x, y = ins["X"], ins["Y"]
    if x.shape == y.shape and x.dtype == y.dtype and is_float(x):
        return {"Out": add_same(x, y, out_buffer(ctx, x, x.shape, x.dtype))}
    run = mid_run(x, y, attrs["axis"]) if is_float(x, y) else None
    if run is None or run[0] == 1:  # add_mid splits its rows p: with one, Y is one value a row of [n, post]
        out = _on_threads(x, y, attrs["axis"], "ADD")
        if out is not None:
            return {"Out": out}
    if run is None:
        return {"Out": np.add(*align_both(x, y, attrs["axis"])).astype(x.dtype, copy=False)}
    out = out_buffer(ctx, x, x.shape, x.dtype)
    args = (np.ascontiguousarray(x).reshape(run), np.ascontiguousarray(y).reshape(-1), out.reshape(run))
    twin(
        _loops().add_mid,
        _loops().add_mid_parallel,
        run[0] > 1 and parallel_parts(x.size) > 1,
        *args,
        replica=_replicas.add_mid,
    )(*args)
    return {"Out": out}


def elementwise_add_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    run = mid_run(x, y, attrs["axis"]) if is_float(x, y, dout) and dout.shape == x.shape else None
    if run is None:
        return _add_grad_numpy(ins, attrs)
    return {"X@GRAD": dout, "Y@GRAD": bias_grad(dout, run, y.shape)}


def bias_grad(dout, run, shape, out=None):
    """The gradient of a bias Y of ``shape`` added to X [pre, n, post] (``run``), from X's gradient
    ``dout`` (float32/float64): dout summed over pre and post, in a numba loop (its twin on the
    device's threads when dout is large); into ``out`` where given (C-contiguous, of dout's dtype)."""
    dy = np.empty(shape, dtype=dout.dtype) if out is None else out
    args = (np.ascontiguousarray(dout).reshape(run), dy.reshape(-1))
    loops = _loops()
    twin(
        loops.sum_outer,
        loops.sum_outer_parallel,
        run[1] * run[2] >= 4 * loops.SUM_BLOCK and parallel_parts(dout.size) > 1,
        *args,
        replica=_replicas.sum_outer,
    )(*args)
    return dy


def row_view(x, y, axis):
    """(X as [rows, cols], Y as [rows, cols], [rows, 1] or [1, cols], the mode of _broadcast_loops)
    where Y under Fluid's axis rule has X's shape, or X's leading dims and 1s after them, or 1s and
    then X's trailing dims; else None (Y broadcast along middle dims, or larger than X)."""
    yb = align(x, y, axis)
    if yb.ndim > x.ndim or x.ndim == 0:
        return None
    shape = (1,) * (x.ndim - yb.ndim) + yb.shape
    if shape == x.shape:
        cols = x.shape[-1]
        return x.reshape(-1, cols), y.reshape(-1, cols), _broadcast().SAME
    lead = next((j for j in range(x.ndim) if shape[j] != x.shape[j]), x.ndim)
    if all(d == 1 for d in shape[lead:]):
        rows = math.prod(x.shape[:lead])
        return x.reshape(rows, -1), y.reshape(rows, 1), _broadcast().PER_ROW
    trail = next((i for i in range(x.ndim, 0, -1) if shape[i - 1] != x.shape[i - 1]), 0)
    if all(d == 1 for d in shape[:trail]):
        cols = math.prod(x.shape[trail:])
        return x.reshape(-1, cols), y.reshape(1, cols), _broadcast().PER_COL
    return None


def middle_view(x, y, axis):
    """(X as [a, b, c], Y as [ya, c], ya 1 or a) where X and Y are C-contiguous and Y under Fluid's
    axis rule is broadcast along one run of X's dims (b) with X's dims or 1s before it (the
    attention's [B, T, H] + [B, 1, H]; a bias [rows, n] + [n]); Y of X's shape: [rows, 1, cols]
    and [rows, cols]. None otherwise."""
    yb = align(x, y, axis)
    if yb.ndim > x.ndim or x.ndim == 0 or not (x.flags.c_contiguous and y.flags.c_contiguous):
        return None
    shape = (1,) * (x.ndim - yb.ndim) + yb.shape
    if shape == x.shape:
        rows = math.prod(x.shape[:-1])
        return x.reshape(rows, 1, -1), y.reshape(rows, -1)
    trail = x.ndim
    while trail and shape[trail - 1] == x.shape[trail - 1]:
        trail -= 1
    mid = trail
    while mid and shape[mid - 1] == 1:
        mid -= 1
    if shape[:mid] != x.shape[:mid]:
        return None
    a, b, c = math.prod(x.shape[:mid]), math.prod(x.shape[mid:trail]), math.prod(x.shape[trail:])
    return x.reshape(a, b, c), y.reshape(-1, c)


def _on_threads(x, y, axis, op):
    """x ``op`` y (a _broadcast_loops name: ADD, SUB, MUL) by _broadcast_loops on the device's threads
    where X is large, both are C-contiguous floats of one dtype and row_view finds Y's place; else None."""
    if (
        x.dtype != y.dtype
        or not is_float(x)
        or parallel_parts(x.size) < 2
        or not (x.flags.c_contiguous and y.flags.c_contiguous)
    ):
        return None
    view = row_view(x, y, axis)
    if view is None:
        return None
    out = np.empty(x.shape, x.dtype)
    loops = _broadcast()
    run_in_parts(loops, "binary", x.size, view[0], view[1], out.reshape(view[0].shape), getattr(loops, op), view[2])
    return out


def _binary(fn, op=None):
    """Fluid's elementwise op ``fn`` (numpy's ufunc); ``op``: its _broadcast_loops name, for large arrays."""

    def kernel(ins, attrs):
        x, y = ins["X"], ins["Y"]
        out = None if op is None else _on_threads(x, y, attrs["axis"], op)
        if out is None:
            out = fn(*align_both(x, y, attrs["axis"])).astype(x.dtype, copy=False)
        return {"Out": out}

    return kernel


elementwise_sub = _binary(np.subtract, "SUB")
elementwise_mul = _binary(np.multiply, "MUL")
_div_floats = _binary(np.divide)


def elementwise_div(ins, attrs):
    """X / Y; of ints truncated towards zero, a zero in Y an error (Fluid 1.8's and Paddle 2.6's)."""
    x, y = ins["X"], ins["Y"]
    if x.dtype.kind not in "iu":
        return _div_floats(ins, attrs)
    check_divisor(y, "elementwise_div")
    return {"Out": truncated_div(*align_both(x, y, attrs["axis"])).astype(x.dtype, copy=False)}


elementwise_max = _binary(np.maximum)
elementwise_min = _binary(np.minimum)
elementwise_pow = _binary(np.power)


def _grad(local_grads):
    """local_grads(x, y, out, dout) -> (dx, dy) in the broadcast shape (out: Out, which only div's grad op
    reads, as Fluid's; None for the others)."""

    def kernel(ins, attrs):
        x, y, out, dout = ins["X"], ins["Y"], ins.get("Out"), ins["Out@GRAD"]
        xa, ya = align_both(x, y, attrs["axis"])
        dx, dy = local_grads(xa, ya, out, dout)
        return {
            "X@GRAD": _reduce_to(dx, dout.shape, xa).reshape(x.shape),
            "Y@GRAD": _reduce_to(dy, dout.shape, ya).reshape(y.shape),
        }

    return kernel


def _reduce_to(grad, out_shape, like):
    # (np.broadcast_to only where the shape differs: its view of an array of the same shape is read-only,
    # and numba compiles every loop downstream once more for read-only arguments)
    if grad.shape != out_shape:
        grad = np.broadcast_to(grad, out_shape)
    return unbroadcast(grad, like.shape).astype(like.dtype, copy=False)


_add_grad_numpy = _grad(lambda x, y, out, d: (d, d))
elementwise_sub_grad = _grad(lambda x, y, out, d: (d, -d))
# complex: the other factor's conjugate (kernels/common.py conj)
elementwise_mul_grad = _grad(lambda x, y, out, d: (d * conj(y), d * conj(x)))
elementwise_div_grad = _grad(lambda x, y, out, d: (d / conj(y), -d * conj(out / y)))
# Ties send the gradient to Y, as Fluid does.
elementwise_max_grad = _grad(lambda x, y, out, d: (d * (x > y), d * (x <= y)))
elementwise_min_grad = _grad(lambda x, y, out, d: (d * (x < y), d * (x >= y)))
elementwise_pow_grad = _grad(
    lambda x, y, out, d: (d * y * np.power(x, y - 1), d * np.power(x, y) * np.log(np.where(x > 0, x, 1)))
)


def elementwise_floordiv(ins, attrs, ctx=NO_CONTEXT):
    """Fluid 1.8's truncated int division, or Paddle 2.x's floored one (``ctx.paddle2``; floats too)."""
    x, y = ins["X"], ins["Y"]
    check_divisor(y, "elementwise_floordiv")
    xa, ya = align_both(x, y, attrs["axis"])
    out = floored_div(xa, ya) if ctx.paddle2 else truncated_div(xa, ya)
    return {"Out": out.astype(x.dtype, copy=False)}


def elementwise_mod(ins, attrs, ctx=NO_CONTEXT):
    """Fluid 1.8's remainder (ints: X's sign), or Paddle 2.x's (``ctx.paddle2``: Y's sign)."""
    x, y = ins["X"], ins["Y"]
    check_divisor(y, "elementwise_mod")
    return {"Out": remainder(*align_both(x, y, attrs["axis"]), ctx.paddle2).astype(x.dtype, copy=False)}


def sum(ins, attrs):
    xs = ins["X"]
    if isinstance(xs[0], list):  # tensor arrays' gradients (control flow): slot by slot
        return {"Out": functools.reduce(control_flow.add, xs)}
    if any(isinstance(x, SelectedRows) for x in xs):
        return {"Out": sum_with_sparse(xs)}
    if len(xs) > 2 and _same_floats(*xs):
        return {"Out": _sum_floats(xs)}
    if len(xs) > 1 and xs[0].dtype == xs[1].dtype and xs[0].shape == xs[1].shape:
        # one pass, where a copy then += made two (on the device's threads for large floats): the same bits
        out = add_same(xs[0], xs[1], np.empty(xs[0].shape, xs[0].dtype)) if is_float(xs[0]) else np.add(xs[0], xs[1])
        rest = xs[2:]
    else:
        out, rest = xs[0].copy(), xs[1:]
    for x in rest:
        out += x
    return {"Out": out}


def _same_floats(*xs):
    """True when the arrays are float arrays of one shape and dtype."""
    return is_float(*xs) and all(x.shape == xs[0].shape for x in xs)


def _sum_floats(xs):
    """The sum of three or more float arrays of one shape and dtype in numpy's order (((x0 + x1) + x2)
    + x3, then + x4 + x5, ...), in passes over up to four of them (_elementwise_loops.py)."""
    out = np.empty(xs[0].shape, xs[0].dtype)
    o = out.reshape(-1)
    head = [flat(x) for x in xs[:4]]
    run_in_parts(_elementwise(), f"add{len(head)}", o.size, *head, o, replica=getattr(_replicas, f"add{len(head)}"))
    rest = xs[4:]
    while len(rest) > 1:
        run_in_parts(_elementwise(), "add3", o.size, o, flat(rest[0]), flat(rest[1]), o, replica=_replicas.add3)
        rest = rest[2:]
    if rest:
        add_same(out, rest[0], out)
    return out


def scale(ins, attrs, ctx=NO_CONTEXT):
    x = ins["X"]
    if isinstance(x, SelectedRows):  # Fluid's scale of a SelectedRows: its values, the same rows
        return {"Out": x.with_arrays(x.rows, scale(dict(ins, X=x.values), attrs)["Out"])}
    s, b = attrs["scale"], attrs["bias"]
    if ins.get("ScaleTensor") is not None:  # Fluid 1.8's ScaleTensor: its one value is the scale
        s = float(np.asarray(ins["ScaleTensor"]).reshape(-1)[0])
    if is_float(x):  # one pass (_elementwise_loops.py), over x where enable_inplace allows it
        out = out_buffer(ctx, x, x.shape, x.dtype)
        run_in_parts(
            _elementwise(),
            "scale",
            x.size,
            flat(x),
            x.dtype.type(s),
            x.dtype.type(b),
            bool(attrs["bias_after_scale"]),
            out.reshape(-1),
            replica=_replicas.scale,
        )
        return {"Out": out}
    if out_buffer(ctx, x, x.shape, x.dtype) is x:  # the same arithmetic, written over x
        s, b = x.dtype.type(s), x.dtype.type(b)
        if attrs["bias_after_scale"]:
            np.add(np.multiply(x, s, out=x), b, out=x)
        else:
            np.multiply(np.add(x, b, out=x), s, out=x)
        return {"Out": x}
    out = (
        x * x.dtype.type(s) + x.dtype.type(b) if attrs["bias_after_scale"] else (x + x.dtype.type(b)) * x.dtype.type(s)
    )
    return {"Out": out.astype(x.dtype, copy=False)}


def clip(ins, attrs):
    x = ins["X"]
    return {"Out": np.clip(x, x.dtype.type(attrs["min"]), x.dtype.type(attrs["max"]))}


def clip_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    inside = (x > x.dtype.type(attrs["min"])) & (x < x.dtype.type(attrs["max"]))
    return {"X@GRAD": dout * inside}


def clip_by_norm(ins, attrs):
    x = ins["X"]
    if isinstance(x, SelectedRows):  # as Fluid's: the rows merged (duplicates summed), their values clipped
        rows, values = x.merged()
        return {"Out": x.with_arrays(rows, clip_by_norm({"X": values}, attrs)["Out"])}
    norm = np.sqrt(np.sum(np.square(x, dtype=x.dtype), dtype=x.dtype))
    max_norm = x.dtype.type(attrs["max_norm"])
    if norm > max_norm:
        return {"Out": (x * (max_norm / norm)).astype(x.dtype, copy=False)}
    return {"Out": x.copy()}


def isfinite(ins, attrs):
    return {"Out": np.array([bool(np.isfinite(ins["X"]).all())])}


def isinf(ins, attrs):
    return {"Out": np.array([bool(np.isinf(ins["X"]).any())])}


def isnan(ins, attrs):
    return {"Out": np.array([bool(np.isnan(ins["X"]).any())])}


def elementwise_div_grad_grad(ins, attrs, ctx):
    """Fluid's second-order gradient of elementwise_div, made of this device's kernels above."""
    return div_grad_grad(globals(), ins, attrs, ctx)


def dgc_clip_by_norm(ins, attrs, clip=clip_by_norm, step_of=lambda s: s):
    """clip_by_norm from step rampup_begin_step on (``clip``, ``step_of``: the CUDA kernel's clip and host copy)."""
    begin = int(attrs["rampup_begin_step"])
    if begin < 0 or int(np.asarray(step_of(ins["current_step"])).reshape(-1)[0]) < begin:
        return {"Out": ins["X"]}
    return clip({"X": ins["X"]}, attrs)


def minus(ins, attrs):
    """Fluid 1.8's minus: X - Y of one shape (checked at run time, as Fluid's)."""
    if ins["X"].shape != ins["Y"].shape:
        raise PeError(f"minus takes X and Y of one shape, got X {list(ins['X'].shape)} and Y {list(ins['Y'].shape)}")
    return elementwise_sub(ins, {"axis": -1})
