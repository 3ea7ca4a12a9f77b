"""CUDA twins of kernels/cpu/indexing.py. This module defines a kernel named ``slice``: the builtin
is reached as ``builtins.slice``. Slices are strided copies; gather, scatter and gather_nd check
their indices on the host and move rows in one launch; where is one grid-stride pass; top_k and
arg_max/min one thread per row. argsort, unique and where_index (whose output size depends on the
data) run on the host, as sequence_erase does."""

import builtins
import math

import numpy as np
from numba import cuda

from ...shapes.manipulation_run import check_slice_not_empty, slice_window
from ..context import NO_CONTEXT
from ..value_checks import gather_rows, nd_offsets, one_hot_ids, scatter_ids
from . import runtime as rt
from ._host import given_cpu_kernel, on_host
from ._elementwise import expand_to
from ._launch import copy, flat, grid, zeros
from ._reduce import sum_to_shape
from ._strided import contiguous_strides, copy_window
from .launcher import jit_kernel
from ...shapes.indexing import arg_dtype, decreased, flat_arg_shape, strided_geometry, top_k_mismatch


# -- strided_slice, unbind ----------------------------------------------------------------------------


def _strided(x_shape, attrs):
    first, sizes, steps = strided_geometry(tuple(x_shape), attrs)
    xstr = contiguous_strides(x_shape)
    return sizes, [s * t for s, t in zip(xstr, steps)], sum(f * s for f, s in zip(first, xstr))


def strided_slice(ins, attrs, ctx=NO_CONTEXT):
    x = ins["Input"]
    sizes, src, base = _strided(x.shape, attrs)
    out = rt.empty(tuple(sizes), x.dtype)
    copy_window(x, out, sizes, src, contiguous_strides(sizes), base)
    return {"Out": out.reshape(decreased(sizes, attrs, ctx.zero_dim))}


def strided_slice_grad(ins, attrs):
    x, dout = ins["Input"], ins["Out@GRAD"]
    sizes, dst, base = _strided(x.shape, attrs)
    dx = zeros(x.shape, x.dtype)
    copy_window(dout, dx, sizes, contiguous_strides(sizes), dst, 0, base)
    return {"Input@GRAD": dx}


# -- scatter, gather_nd -------------------------------------------------------------------------------


@jit_kernel
def _set_rows(out, ids, upd, row, n, zero):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n:
        j = ids[i // row] * row + i % row
        if zero:
            out[j] = 0
        else:
            out[j] = upd[i]
        i += step


def _rows(out, ids, upd, row, zero=False):
    n = ids.size * row
    if n:
        _set_rows[grid(n)](flat(out), ids, flat(upd), row, n, zero)


def _host_ids(ids, rows):
    return scatter_ids(rt.to_host(ids), rows)


def scatter(ins, attrs):
    x, upd = ins["X"], ins["Updates"]
    ids = _host_ids(ins["Ids"], x.shape[0])
    row = x.size // x.shape[0] if x.shape[0] else 0
    out = copy(x)
    if attrs["overwrite"]:
        # a repeated id keeps its last row: write only each id's last occurrence
        last = ids.size - 1 - np.unique(ids[::-1], return_index=True)[1]
        keep = rt.to_device(np.sort(last).astype(np.int64))
        picked = rt.empty((keep.size, row), upd.dtype)
        if picked.size:
            _gather_rows[grid(picked.size)](flat(upd), keep, flat(picked), row)
        _rows(out, rt.to_device(ids[np.sort(last)]), picked, row)
    else:
        d_ids = rt.to_device(ids)
        _rows(out, d_ids, upd, row, zero=True)
        if upd.size:
            _scatter_add_rows[grid(upd.size)](flat(upd), d_ids, flat(out), row)
    return {"Out": out}


def scatter_grad(ins, attrs):
    dout = ins["Out@GRAD"]
    ids = rt.to_device(_host_ids(ins["Ids"], dout.shape[0]))
    row = dout.size // dout.shape[0] if dout.shape[0] else 0
    dx = copy(dout)
    _rows(dx, ids, dout, row, zero=True)
    dupd = rt.empty(tuple(ins["Updates"].shape), dout.dtype)
    if dupd.size:
        _gather_rows[grid(dupd.size)](flat(dout), ids, flat(dupd), row)
    return {"X@GRAD": dx, "Updates@GRAD": dupd}


def gather_nd(ins, attrs):
    x, index = ins["X"], ins["Index"]
    offs, inner = nd_offsets(rt.to_host(index), tuple(x.shape))
    k = tuple(index.shape)[index.ndim - 1]
    out = rt.empty(tuple(index.shape)[:-1] + tuple(x.shape)[k:] or (1,), x.dtype)
    if out.size:
        _gather_rows[grid(out.size)](flat(x), rt.to_device(offs), flat(out), inner)
    return {"Out": out}


def gather_nd_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    offs, inner = nd_offsets(rt.to_host(ins["Index"]), tuple(x.shape))
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _scatter_add_rows[grid(dout.size)](flat(dout), rt.to_device(offs), flat(dx), inner)
    return {"X@GRAD": dx}


# -- argsort, unique ---------------------------------------------------------------------------------


def argsort(ins, attrs, cpu_argsort):
    outs = cpu_argsort({"X": rt.to_host(ins["X"])}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


@jit_kernel
def _unsort(dout, idx, dx, n, post):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        q = i % post
        p = i // (n * post)
        dx[(p * n + idx[i]) * post + q] = dout[i]
        i += step


def argsort_grad(ins, attrs):
    x, idx, dout = ins["X"], ins["Indices"], ins["Out@GRAD"]
    shape = tuple(x.shape)
    axis = attrs["axis"] % len(shape)
    dx = zeros(shape, x.dtype)
    if dout.size:
        _unsort[grid(dout.size)](
            flat(dout), flat(idx), flat(dx), shape[axis], int(np.prod(shape[axis + 1 :], dtype=np.int64))
        )
    return {"X@GRAD": dx}


def unique(ins, attrs, cpu_unique):
    outs = cpu_unique({"X": rt.to_host(ins["X"])}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


def slice(ins, attrs, ctx=NO_CONTEXT):
    x = ins["Input"]
    starts, sizes = slice_window(tuple(x.shape), attrs)
    check_slice_not_empty(x.shape, sizes, attrs)
    xstr = contiguous_strides(x.shape)
    out = rt.empty(sizes, x.dtype)
    copy_window(x, out, sizes, xstr, contiguous_strides(sizes), builtins.sum(s * t for s, t in zip(starts, xstr)))
    if attrs["decrease_axis"]:
        out = out.reshape(decreased(sizes, attrs, ctx.zero_dim))
    return {"Out": out}


def slice_grad(ins, attrs):
    x, dout = ins["Input"], ins["Out@GRAD"]
    starts, sizes = slice_window(tuple(x.shape), attrs)
    xstr = contiguous_strides(x.shape)
    dx = zeros(x.shape, x.dtype)
    copy_window(dout, dx, sizes, contiguous_strides(sizes), xstr, 0, builtins.sum(s * t for s, t in zip(starts, xstr)))
    return {"Input@GRAD": dx}


# -- gather, one_hot, expand ---------------------------------------------------------------------


def _checked_rows(index, n):
    """The index as a flat int64 device array, checked (on the host) to lie in [0, n)."""
    gather_rows(rt.to_host(index), n)
    idx = index.reshape((index.size,))
    return idx if idx.dtype == np.int64 else copy(idx, np.int64)


@jit_kernel
def _gather_rows(x, idx, out, row):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        r = i // row
        out[i] = x[idx[r] * row + i % row]
        i += step


@jit_kernel
def _scatter_add_rows(dout, idx, dx, row):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        r = i // row
        cuda.atomic.add(dx, idx[r] * row + i % row, dout[i])
        i += step


def gather(ins, attrs):
    x = ins["X"]
    idx = _checked_rows(ins["Index"], x.shape[0])
    out = rt.empty((idx.size,) + tuple(x.shape[1:]), x.dtype)
    if out.size:
        _gather_rows[grid(out.size)](flat(x), idx, flat(out), out.size // idx.size)
    return {"Out": out}


def gather_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    idx = _checked_rows(ins["Index"], x.shape[0])
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _scatter_add_rows[grid(dout.size)](flat(dout), idx, flat(dx), dout.size // idx.size)
    return {"X@GRAD": dx}


@jit_kernel
def _one_hot(ids, out, depth):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = 1 if ids[i // depth] == i % depth else 0
        i += step


def one_hot(ins, attrs):
    x, depth = ins["X"], attrs["depth"]
    if not attrs["allow_out_of_range"]:
        one_hot_ids(rt.to_host(x), depth, False)  # raises the CPU kernel's error, if any
    out = rt.empty(tuple(x.shape[:-1]) + (depth,), np.dtype(attrs["dtype"]))
    if out.size:
        _one_hot[grid(out.size)](flat(x), flat(out), depth)
    return {"Out": out}


def one_hot_v2(ins, attrs):
    x = ins["X"]
    return one_hot({"X": x.reshape(tuple(x.shape) + (1,))}, attrs)


@jit_kernel
def _where(cond, x, y, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = x[i] if cond[i] else y[i]
        i += step


@jit_kernel
def _where_grad(cond, dout, dx, dy):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dout.size:
        dx[i] = dout[i] if cond[i] else 0
        dy[i] = 0 if cond[i] else dout[i]
        i += step


def where(ins, attrs):
    cond, x, y = ins["Condition"], ins["X"], ins["Y"]
    shape = np.broadcast_shapes(cond.shape, x.shape, y.shape)
    cond, x, y = (v if v.shape == shape else expand_to(v, shape) for v in (cond, x, y))
    out = rt.empty(shape, x.dtype)
    if out.size:
        _where[grid(out.size)](flat(cond), flat(x), flat(y), flat(out))
    return {"Out": out}


def where_grad(ins, attrs):
    cond, dout = ins["Condition"], ins["Out@GRAD"]
    cond = cond if cond.shape == dout.shape else expand_to(cond, dout.shape)
    dx, dy = rt.empty(dout.shape, dout.dtype), rt.empty(dout.shape, dout.dtype)
    if dout.size:
        _where_grad[grid(dout.size)](flat(cond), flat(dout), flat(dx), flat(dy))
    grads = {"X@GRAD": dx, "Y@GRAD": dy}
    for slot in ("X", "Y"):
        if ins.get(slot) is not None:
            grads[slot + "@GRAD"] = sum_to_shape(grads[slot + "@GRAD"], ins[slot].shape)
    return grads


def where_index(ins, attrs, cpu_where_index):
    return {"Out": rt.to_device(cpu_where_index({"Condition": rt.to_host(ins["Condition"])}, attrs)["Out"])}


@jit_kernel
def _top_k(x, out, idx, n, k):
    """Per row: the k largest in the order (value descending, index ascending), like a stable sort."""
    r = cuda.grid(1)
    step = cuda.gridsize(1)
    while r < out.size // k:
        base = r * n
        if k == 1:  # the CPU's running comparison (_top_k_loops.top_1_rows), which NaN never passes: Paddle's order
            best = 0
            for c in range(1, n):
                best = c if x[base + c] > x[base + best] else best
            out[r], idx[r] = x[base + best], best
        else:
            prev_v, prev_i = math.inf, -1
            for s in range(k):
                best = -1
                for c in range(n):
                    v = x[base + c]
                    after_prev = v < prev_v or (v == prev_v and c > prev_i)
                    if after_prev and (best < 0 or v > x[base + best]):
                        best = c
                out[r * k + s] = x[base + best]
                idx[r * k + s] = best
                prev_v = x[base + best]
                prev_i = best
        r += step


def top_k(ins, attrs):
    x = ins["X"]
    k = attrs["k"]
    shape = tuple(x.shape)
    n = shape[-1]
    if error := top_k_mismatch(k, shape):
        raise ValueError(error)
    out = rt.empty(shape[:-1] + (k,), x.dtype)
    idx = rt.empty(shape[:-1] + (k,), np.int64)
    if out.size:
        _top_k[grid(out.size // k)](flat(x), flat(out), flat(idx), n, k)
    return {"Out": out, "Indices": idx}


@jit_kernel
def _arg_extreme(x, out, n, inner, is_max):
    """Per output: the index along the axis of the first max (min) of its row."""
    o = cuda.grid(1)
    step = cuda.gridsize(1)
    while o < out.size:
        base = (o // inner) * n * inner + o % inner
        best = 0
        bv = x[base]
        for j in range(1, n):
            v = x[base + j * inner]
            if (is_max and v > bv) or (not is_max and v < bv):
                best = j
                bv = v
        out[o] = best
        o += step


def _arg(is_max):
    def kernel(ins, attrs, ctx=NO_CONTEXT):
        x = ins["X"]
        shape = tuple(x.shape)
        if attrs["flatten"]:
            out = rt.empty((1,), np.int64)
            _arg_extreme[grid(1)](flat(x), out, x.size, 1, is_max)
            return {"Out": _as_arg_dtype(out.reshape(flat_arg_shape(shape, attrs["keepdims"], ctx.zero_dim)), attrs)}
        axis = attrs["axis"] % x.ndim
        n = shape[axis]
        inner = 1
        for d in shape[axis + 1 :]:
            inner *= d
        out_shape = shape[:axis] + ((1,) if attrs["keepdims"] else ()) + shape[axis + 1 :]
        out = rt.empty(out_shape or (1,), np.int64)
        if out.size:
            _arg_extreme[grid(out.size)](flat(x), flat(out), n, inner, is_max)
        return {"Out": _as_arg_dtype(out if out_shape else out.reshape(()), attrs)}  # a 1-D X: 0-D, as Fluid

    return kernel


def _as_arg_dtype(out, attrs):
    dtype = arg_dtype(attrs)
    return out if dtype == np.int64 else copy(out, dtype)


arg_max = _arg(True)
arg_min = _arg(False)


HOST_OPS = {
    "top_k_grad": on_host,  # Out@GRAD scattered back to the positions top_k took, by the CPU kernel on the host
    "argsort": given_cpu_kernel(argsort),
    "unique": given_cpu_kernel(unique),
    "where_index": given_cpu_kernel(where_index),
}
