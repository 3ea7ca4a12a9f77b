"""CUDA twins of kernels/cpu/indexing_extra.py. Slices are strided copies; scatter and gather_nd
check their indices on the host (as gather does) and move rows in one launch. argsort and unique
(whose output size depends on the data) sort on the host, as sequence_erase does."""
import numpy as np
from numba import cuda

from ..cpu import indexing_extra as _cpu
from . import runtime as rt
from ._launch import copy, flat, grid, zeros
from ._strided import contiguous_strides, copy_window
from .tensor import _gather_rows, _scatter_add_rows


# -- strided_slice, unbind ----------------------------------------------------------------------------

def _strided(x_shape, attrs):
    first, sizes, steps = _cpu.strided_geometry(tuple(x_shape), attrs)
    xstr = contiguous_strides(x_shape)
    return sizes, [s * t for s, t in zip(xstr, steps)], sum(f * s for f, s in zip(first, xstr))


def strided_slice(ins, attrs):
    x = ins["Input"]
    sizes, src, base = _strided(x.shape, attrs)
    out = rt.empty(tuple(sizes), x.dtype)
    copy_window(x, out, sizes, src, contiguous_strides(sizes), base)
    return {"Out": out.reshape(_cpu.decreased(sizes, attrs))}


def strided_slice_grad(ins, attrs):
    x, dout = ins["Input"], ins["Out@GRAD"]
    sizes, dst, base = _strided(x.shape, attrs)
    dx = zeros(x.shape, x.dtype)
    copy_window(dout, dx, sizes, contiguous_strides(sizes), dst, 0, base)
    return {"Input@GRAD": dx}


def unbind(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    xstr = contiguous_strides(x.shape)
    dims = tuple(d for k, d in enumerate(x.shape) if k != axis)
    src = [s for k, s in enumerate(xstr) if k != axis]
    outs = []
    for i in range(x.shape[axis]):
        out = rt.empty(dims or (1,), x.dtype)
        copy_window(x, out, dims or (1,), src or [0], contiguous_strides(dims or (1,)), i * xstr[axis])
        outs.append(out)
    return {"Out": outs}


# -- scatter, gather_nd -------------------------------------------------------------------------------

@cuda.jit
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
    return _cpu.scatter_ids(rt.to_host(ids), rows)


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
    offs, inner = _cpu.nd_offsets(rt.to_host(index), tuple(x.shape))
    k = tuple(index.shape)[index.ndim - 1]
    out = rt.empty(tuple(index.shape)[:-1] + tuple(x.shape)[k:] or (1,), x.dtype)
    if out.size:
        _gather_rows[grid(out.size)](flat(x), rt.to_device(offs), flat(out), inner)
    return {"Out": out}


def gather_nd_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    offs, inner = _cpu.nd_offsets(rt.to_host(ins["Index"]), tuple(x.shape))
    dx = zeros(x.shape, x.dtype)
    if dout.size:
        _scatter_add_rows[grid(dout.size)](flat(dout), rt.to_device(offs), flat(dx), inner)
    return {"X@GRAD": dx}


# -- argsort, unique ---------------------------------------------------------------------------------

def argsort(ins, attrs):
    outs = _cpu.argsort({"X": rt.to_host(ins["X"])}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


@cuda.jit
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
        _unsort[grid(dout.size)](flat(dout), flat(idx), flat(dx), shape[axis],
                                 int(np.prod(shape[axis + 1:], dtype=np.int64)))
    return {"X@GRAD": dx}


def unique(ins, attrs):
    outs = _cpu.unique({"X": rt.to_host(ins["X"])}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}
