"""CUDA twins of kernels/cpu/manipulation.py. Reshape-like ops return views (kernels never write
their inputs, so sharing the buffer is safe); every other data movement is one strided-copy launch (roll two
per rolled dim)."""

import builtins

import numpy as np

from ...base.selected_rows import SelectedRows
from ...shapes.manipulation import inverse_axis
from ...shapes.manipulation_run import (
    expand_times,
    reshape_shape,
    reshape_target_at_run,
    reverse_axes,
    split_sizes,
    squeeze_axes,
    tile_operands,
    unbind_view,
    unsqueeze_shape,
)
from . import runtime as rt
from ._host import on_host_when
from ._launch import copy, full
from ._reduce import reduce
from ._strided import contiguous_strides, copy_window
from ..context import NO_CONTEXT
from ...shapes.reduction import scalar_shape


# -- joining and splitting along an axis ------------------------------------------------------


def place_along(parts, out, axis):
    """Copies each part into ``out`` at its running offset along ``axis``."""
    ostr = contiguous_strides(out.shape)
    start = 0
    for part in parts:
        copy_window(part, out, part.shape, contiguous_strides(part.shape), ostr, 0, start * ostr[axis])
        start += part.shape[axis]
    return out


def take_along(src, sizes, axis):
    """Splits ``src`` along ``axis`` into new arrays of the given sizes."""
    sstr = contiguous_strides(src.shape)
    parts, start = [], 0
    for n in sizes:
        shape = tuple(src.shape[:axis]) + (n,) + tuple(src.shape[axis + 1 :])
        part = rt.empty(shape, src.dtype)
        copy_window(src, part, shape, sstr, contiguous_strides(shape), start * sstr[axis], 0)
        parts.append(part)
        start += n
    return parts


def concat(ins, attrs):
    xs = ins["X"]
    axis = attrs["axis"] % xs[0].ndim
    shape = list(xs[0].shape)
    shape[axis] = builtins.sum(x.shape[axis] for x in xs)
    return {"Out": place_along(xs, rt.empty(shape, xs[0].dtype), axis)}


def concat_grad(ins, attrs):
    xs, dout = ins["X"], ins["Out@GRAD"]
    axis = attrs["axis"] % dout.ndim
    return {"X@GRAD": take_along(dout, [x.shape[axis] for x in xs], axis)}


def split(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    return {"Out": take_along(x, split_sizes(tuple(x.shape), axis, attrs), axis)}


def stack(ins, attrs):
    xs = ins["X"]
    axis = attrs["axis"] % (xs[0].ndim + 1)
    unit = tuple(xs[0].shape[:axis]) + (1,) + tuple(xs[0].shape[axis:])
    shape = unit[:axis] + (len(xs),) + unit[axis + 1 :]
    return {"Y": place_along([x.reshape(unit) for x in xs], rt.empty(shape, xs[0].dtype), axis)}


def stack_grad(ins, attrs):
    xs, dy = ins["X"], ins["Y@GRAD"]
    axis = attrs["axis"] % dy.ndim
    parts = take_along(dy, [1] * len(xs), axis)
    return {"X@GRAD": [p.reshape(x.shape) for p, x in zip(parts, xs)]}


# -- reshape family: views ---------------------------------------------------------------------


def xshape(x):
    return rt.empty((0,) + tuple(x.shape), x.dtype)


def reshape(ins, attrs):
    x = ins["X"]
    shape = reshape_target_at_run(ins, attrs, rt.to_host)
    return {"Out": x.reshape(tuple(reshape_shape(tuple(x.shape), x.size, shape))), "XShape": xshape(x)}


def reshape_grad(ins, attrs):
    """X@GRAD = Out@GRAD in X's shape: X's, or XShape's behind its leading 0 (Fluid's *2_grad ops)."""
    shape = tuple(ins["X"].shape) if ins.get("X") is not None else tuple(ins["XShape"].shape)[1:]
    return {"X@GRAD": ins["Out@GRAD"].reshape(shape)}


def flatten(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"]
    rows = int(np.prod(x.shape[:axis]))
    cols = int(np.prod(x.shape[axis:]))
    return {"Out": x.reshape((rows, cols) if x.ndim else (1,)), "XShape": xshape(x)}  # (0-D: [1], Paddle 2.6's)


def squeeze(ins, attrs):
    x = ins["X"]
    axes = squeeze_axes(tuple(x.shape), attrs["axes"])
    return {"Out": x.reshape(tuple(d for i, d in enumerate(x.shape) if i not in axes)), "XShape": xshape(x)}


def unsqueeze(ins, attrs):
    x = ins["X"]
    return {"Out": x.reshape(tuple(unsqueeze_shape(tuple(x.shape), attrs["axes"]))), "XShape": xshape(x)}


def transpose(ins, attrs):
    x = ins["X"]
    perm = [a % x.ndim for a in attrs["axis"]]
    shape = tuple(x.shape[p] for p in perm)
    xstr = contiguous_strides(x.shape)
    out = rt.empty(shape, x.dtype)
    copy_window(x, out, shape, [xstr[p] for p in perm], contiguous_strides(shape))
    return {"Out": out, "XShape": xshape(x)}


def transpose_grad(ins, attrs):
    """X@GRAD = Out@GRAD permuted back (Fluid's transpose_grad / transpose2_grad)."""
    return {"X@GRAD": transpose({"X": ins["Out@GRAD"]}, dict(attrs, axis=inverse_axis(attrs["axis"])))["Out"]}


def cast(ins, attrs):
    return {"Out": copy(ins["X"], np.dtype(attrs["out_dtype"]))}


def _narrowing(attrs):
    """A cast to float16, int8, int16 or uint8: the CPU's kernel on the host, Paddle's CPU conversions (float16's
    mantissa truncated; ints out of range wrapped), so that both devices give one value (Paddle's own GPU
    kernel rounds float16 to nearest)."""
    return np.dtype(attrs["out_dtype"]) in (np.float16, np.int8, np.int16, np.uint8)


# -- slice ---------------------------------------------------------------------------------------


def _tile_view(shape, times):
    """Out (X tiled) seen as [t0, d0, t1, d1, ...]; X read with stride 0 along the t's."""
    xstr = contiguous_strides(shape)
    dims = tuple(n for t, d in zip(times, shape) for n in (t, d))
    src = tuple(s for st in xstr for s in (0, st))
    return dims, src


def expand(ins, attrs):
    x = ins["X"]
    times = list(attrs["expand_times"])
    shape = tuple(t * d for t, d in zip(times, x.shape))
    out = rt.empty(shape, x.dtype)
    dims, src = _tile_view(x.shape, times)
    copy_window(x, out, dims, src, contiguous_strides(dims))
    return {"Out": out}


def expand_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    times = list(attrs["expand_times"])
    dims = tuple(n for t, d in zip(times, x.shape) for n in (t, d))
    dx = reduce(dout.reshape(dims), tuple(range(0, 2 * x.ndim, 2)), "sum")
    return {"X@GRAD": dx.reshape(tuple(x.shape))}


def tile(ins, attrs):
    shape, times = tile_operands(ins["X"], attrs["repeat_times"])
    return expand({"X": ins["X"].reshape(shape)}, {"expand_times": times})


def tile_grad(ins, attrs):
    x = ins["X"]
    shape, times = tile_operands(x, attrs["repeat_times"])
    dx = expand_grad({"X": x.reshape(shape), "Out@GRAD": ins["Out@GRAD"]}, {"expand_times": times})["X@GRAD"]
    return {"X@GRAD": dx.reshape(tuple(x.shape))}


def _unbind_strides(x_shape, axis, k):
    """(output shape, where output j's elements lie in X: strides, offset of j = 1): X read as [rows, k,
    cols] (shapes/manipulation_run.unbind_view)."""
    rows, cols, shape = unbind_view(x_shape, axis, k)
    pre, post = contiguous_strides(x_shape[:axis]), contiguous_strides(x_shape[axis + 1 :])
    strides = [s * k * cols for s in pre] + list(post)
    return shape, strides or [0], cols


def unbind(ins, attrs, ctx=NO_CONTEXT):
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    k = ctx.count("Out", x.shape[axis])
    shape, strides, step = _unbind_strides(tuple(x.shape), axis, k)
    outs = []
    for j in range(k):
        out = rt.empty(shape, x.dtype)
        copy_window(x, out, shape, strides, contiguous_strides(shape), j * step)
        outs.append(out.reshape(()) if ctx.zero_dim and x.ndim == 1 else out)  # (Paddle 2.6's 0-D slices)
    return {"Out": outs}


def unbind_leading_grad(ins, attrs):
    x, grads = ins["X"], ins["Out@GRAD"]
    shape, strides, step = _unbind_strides(tuple(x.shape), attrs["axis"] % x.ndim, len(grads))
    dx = full(tuple(x.shape), 0, grads[0].dtype)
    for j, g in enumerate(grads):
        copy_window(g, dx, shape, contiguous_strides(shape), strides, 0, j * step)
    return {"X@GRAD": dx}


def reverse(ins, attrs):
    """One strided copy reading X with negative strides along the reversed dims."""
    x = ins["X"]
    axes = reverse_axes(x.ndim, attrs)
    shape = tuple(x.shape) or (1,)
    xstr = list(contiguous_strides(shape))
    base = 0
    for a in axes:
        base += (shape[a] - 1) * xstr[a]
        xstr[a] = -xstr[a]
    out = rt.empty(x.shape, x.dtype)
    copy_window(x, out, shape, xstr, contiguous_strides(shape), base if x.size else 0)
    return {"Out": out}


def expand_as(ins, attrs):
    x = ins["X"]
    times = expand_times(tuple(x.shape), tuple(ins["target_tensor"].shape))
    out = rt.empty(tuple(ins["target_tensor"].shape), x.dtype)
    dims, src = _tile_view(x.shape, times)
    copy_window(x, out, dims, src, contiguous_strides(dims))
    return {"Out": out}


def expand_as_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    times = expand_times(tuple(x.shape), tuple(dout.shape))
    dims = tuple(n for t, d in zip(times, x.shape) for n in (t, d))
    dx = reduce(dout.reshape(dims), tuple(range(0, 2 * x.ndim, 2)), "sum")
    return {"X@GRAD": dx.reshape(tuple(x.shape))}


# -- where_index, size, flags -------------------------------------------------------------------


def size(ins, attrs, ctx=NO_CONTEXT):
    return {"Out": full(scalar_shape(ctx.zero_dim), ins["Input"].size, np.int64)}


def shape(ins, attrs):
    x = ins["Input"]  # (a SelectedRows: its value's dims, [rows, ...], as Fluid's and Paddle's)
    dims = (x.values if type(x) is SelectedRows else x).shape
    return {"Out": rt.to_device(np.asarray(dims, dtype=np.int32).reshape(-1))}


# -- Fluid 1.8's flip, roll and unstack (ops/rearranging.py) -------------------------------------------


def flip(ins, attrs):
    return reverse(ins, {"axis": attrs["dims"]})


def _rolled(x, dim, shift):
    """``x`` rolled ``shift`` places along ``dim``: two strided copies (the tail to the front, the rest after)."""
    shape = tuple(x.shape)
    n = shape[dim]
    k = shift % n if n else 0
    if not k:
        return x
    strides = contiguous_strides(shape)
    out = rt.empty(shape, x.dtype)
    for length, src, dst in ((n - k, 0, k), (k, n - k, 0)):
        dims = shape[:dim] + (length,) + shape[dim + 1 :]
        copy_window(x, out, dims, strides, strides, src * strides[dim], dst * strides[dim])
    return out


def roll(ins, attrs, sign=1):
    x = out = ins["X"]
    if not attrs["dims"] and len(attrs["shifts"]) == 1:  # Paddle 2.x's roll of the flattened X (no axis)
        return {"Out": _rolled(x.reshape(x.size), 0, sign * attrs["shifts"][0]).reshape(x.shape)}
    for shift, dim in zip(attrs["shifts"], attrs["dims"]):
        out = _rolled(out, dim % max(x.ndim, 1), sign * shift)
    return {"Out": copy(x) if out is x else out}


def roll_grad(ins, attrs):
    return {"X@GRAD": roll({"X": ins["Out@GRAD"]}, attrs, sign=-1)["Out"]}


def unstack(ins, attrs, ctx=NO_CONTEXT):
    return {"Y": unbind(ins, attrs, ctx)["Out"]}


def unstack_grad(ins, attrs):
    return {"X@GRAD": stack({"X": ins["Y@GRAD"]}, attrs)["Y"]}


HOST_OPS = {"cast": on_host_when(_narrowing, cast)}
