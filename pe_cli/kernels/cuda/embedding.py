"""CUDA twins of kernels/cpu/embedding.py: a gather of W's rows, its dense gradient an atomic
scatter-add; the sparse gradient's ids are picked on the host."""

import numba
import numpy as np
from numba import cuda

from ...base.selected_rows import SelectedRows
from ...shapes.embedding import lookup_out_shape
from ..value_checks import check_dequant_ids, table_ids
from . import runtime as rt, selected_rows as _sparse
from ._launch import copy, flat, grid, zeros
from .launcher import jit_kernel


# -- lookup_table -----------------------------------------------------------------------------------


def _checked_ids(ids, w, pad):
    """Ids as a flat int64 device array, checked on the host as the CPU kernel does."""
    table_ids(rt.to_host(ids), tuple(w.shape), pad)
    flat_ids = flat(ids)
    return flat_ids if flat_ids.dtype == np.int64 else copy(flat_ids, np.int64)


@jit_kernel
def _lookup(w, ids, out, width, pad):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        k = ids[e // width]
        out[e] = 0 if k == pad else w[k * width + e % width]
        e += step


@jit_kernel
def _lookup_grad(ids, dout, dw, width, pad):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dout.size:
        k = ids[e // width]
        if k != pad:
            cuda.atomic.add(dw, k * width + e % width, dout[e])
        e += step


def lookup_table(ins, attrs):
    w, ids = ins["W"], ins["Ids"]
    pad = attrs["padding_idx"]
    width = w.shape[1]
    idx = _checked_ids(ids, w, pad)
    out = rt.empty(tuple(lookup_out_shape(tuple(ids.shape), width)), w.dtype)
    if out.size:
        _lookup[grid(out.size)](flat(w), idx, flat(out), width, pad)
    return {"Out": out}


def lookup_table_v2(ins, attrs):
    out = lookup_table(ins, attrs)["Out"]
    return {"Out": out.reshape(tuple(ins["Ids"].shape) + (ins["W"].shape[1],))}


def lookup_table_grad(ins, attrs):
    w, ids, dout = ins["W"], ins["Ids"], ins["Out@GRAD"]
    pad = attrs["padding_idx"]
    width = w.shape[1]
    if attrs["is_sparse"]:  # the ids looked up (host; padding_idx left out) and their rows of Out@GRAD
        flat_ids = table_ids(rt.to_host(ids), tuple(w.shape), pad)
        keep = np.flatnonzero(flat_ids != pad)
        values = _sparse.gather_rows(dout.reshape((len(flat_ids), width)), keep)
        return {"W@GRAD": SelectedRows(flat_ids[keep], values, w.shape[0])}
    idx = _checked_ids(ids, w, pad)
    dw = zeros(w.shape, w.dtype)
    if dout.size:
        _lookup_grad[grid(dout.size)](idx, flat(dout), flat(dw), width, pad)
    return {"W@GRAD": dw}


# -- lookup_table_dequant: one thread per output value, its byte read from the row's packed floats ----


@jit_kernel
def _dequant(table, codes, ids, out, width, quant, pad):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < out.size:
        r, c = t // width, t % width
        row = ids[r]
        if row == pad:
            out[t] = 0.0
        else:
            lo, hi = table[row * quant], table[row * quant + 1]
            code = codes[(row * quant + 2) * 4 + c]
            out[t] = (hi - lo) / numba.float32(256.0) * numba.float32(code) + lo
        t += step


def lookup_table_dequant(ins, attrs):
    w, ids = ins["W"], ins["Ids"]
    host_ids = rt.to_host(ids).reshape(-1)
    check_dequant_ids(host_ids, w.shape[0], attrs["padding_idx"])
    width = (w.shape[1] - 2) * 4
    out = rt.empty(tuple(ids.shape[:-1]) + (width,), np.float32)
    if out.size:
        bytes_ = flat(w).view(np.uint8)
        _dequant[grid(out.size)](flat(w), bytes_, flat(ids), flat(out), width, w.shape[1], attrs["padding_idx"])
    return {"Out": out}
