"""Kernels of the selecting family (pe_cli/ops/selecting.py): top_k_v2 (and its gradient: out-kernels of
shapes/indexing.py's meta rules) in the order of Paddle's CPU kernel
(std::partial_sort, or nth_element and sort, of (value, index) pairs comparing values alone: equal values land
where libstdc++ leaves them, its steps run by numba loops (_stl_sort_loops.py) for the rows that hold any), masked_select
by a boolean index (and its gradient: fresh out-kernels of shapes/indexing.py's masked_select rules)."""

import numpy as np

from ...shapes.indexing import masked_select_grad_meta, masked_select_meta, top_k_grad_meta, top_k_v2_meta
from ..structured import adapter, fresh_kernel, fresh_output
from .runtime.loops import lazy
from .elementwise import unbroadcast
from .launches import by_variant

_stl_sort_loops = lazy("_stl_sort_loops")


SMALLEST, LARGEST, GREATER = 0, 1, 2  # _stl_sort_loops.py's comparators (named here without importing numba)


def numba_rows(rows):
    """``rows`` as the contiguous array _stl_sort_loops.py's loops take (bool as uint8, float16 as float32: the
    same order)."""
    if rows.dtype.kind == "b" or rows.dtype == np.float16:
        rows = rows.astype(np.uint8 if rows.dtype.kind == "b" else np.float32)
    return np.ascontiguousarray(rows)


def tied_rows(rows, chosen, largest=None):
    """Whether a value of ``chosen`` ([R, m], values of ``rows`` [R, n]) occurs more than once in its row: the
    rows whose order of equal values only the emulated algorithm gives. ``largest`` True or False: ``chosen`` is
    each row's m largest (smallest), in order, and a repeat is two equal neighbours or more values at least as
    large (small) as the last than m; None: counted value by value (NaN as one value). Rows holding NaN are the
    caller's."""
    if largest is not None:
        last = chosen[:, -1:]
        beyond = np.count_nonzero(rows >= last if largest else rows <= last, axis=1) > chosen.shape[1]
        return beyond | (chosen[:, 1:] == chosen[:, :-1]).any(axis=1)
    nan = rows.dtype.kind in "fc"
    count = np.zeros(rows.shape[0], np.int64)
    for j in range(chosen.shape[1]):
        v = chosen[:, j : j + 1]
        hit = rows == v
        if nan:
            hit |= np.isnan(rows) & np.isnan(v)
        count += np.count_nonzero(hit, axis=1)
    return count > chosen.shape[1]


def _top_indices(rows, k, largest, sort_first=True):
    """[rows, k] indices of each row's top k in Paddle's order: a stable sort where no value of a row's top k
    occurs twice in it and no NaN (the same result), Paddle's STL calls step for step where one does (_stl_sort_loops.py) (the order of
    Paddle's, which no stable rule gives)."""
    key = -rows.astype(np.float64) if largest else rows
    out = np.argsort(key, axis=1, kind="stable")[:, :k]
    if k:
        tied = tied_rows(rows, np.take_along_axis(rows, out, axis=1), bool(largest))
        if rows.dtype.kind == "f":  # (NaN goes first when largest: a stable sort of -x leaves it last)
            tied |= np.isnan(rows).any(axis=1)
        if not sort_first and k * 64 >= rows.shape[1]:  # unsorted: nth_element's order, in every row
            tied[:] = True
        if tied.any():
            found = np.empty((int(tied.sum()), k), np.int64)
            mode = LARGEST if largest else SMALLEST
            _stl_sort_loops().top_k_v2_rows(numba_rows(rows[tied]), k, mode, bool(sort_first), found)
            out[tied] = found
    return out


def _top_k_v2(ins, outs, attrs, meta):
    """Out, Indices: the k best along the axis in Paddle's order, as the arrays numpy makes (fresh)."""
    x = ins["X"]
    xs = x.reshape(1) if x.ndim == 0 else x
    axis, k = attrs["axis"] % xs.ndim, int(attrs["k"]) if x.ndim else 1  # (a 0-D X: itself, any k: Paddle's)
    moved = np.moveaxis(xs, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    idx = _top_indices(rows, k, attrs["largest"], attrs["sorted"]).reshape(moved.shape[:-1] + (k,))
    idx = np.moveaxis(idx, -1, axis)
    out = np.take_along_axis(xs, idx, axis=axis)
    shape = x.shape if x.ndim == 0 else out.shape
    outs["Out"] = fresh_output(out.reshape(shape), meta.outputs["Out"], ins.values())
    outs["Indices"] = fresh_output(idx.astype(np.int64).reshape(shape), meta.outputs["Indices"], ins.values())


def _top_k_v2_grad(ins, outs, attrs, meta):
    """X@GRAD: Out@GRAD put back where its values came from (Indices along the axis), 0 elsewhere."""
    x, idx, dout = ins["X"], ins["Indices"], ins["Out@GRAD"]
    dx = outs["X@GRAD"].reshape(x.shape or (1,))
    dx.fill(0)
    axis = attrs["axis"] % dx.ndim
    np.put_along_axis(dx, idx.reshape(dout.shape or (1,)), dout.reshape(dout.shape or (1,)), axis=axis)


TOP_K_V2 = by_variant("top_k_v2_out", None, paddle=_top_k_v2)
TOP_K_V2_GRAD = by_variant("top_k_v2_grad_out", None, put=_top_k_v2_grad)
top_k_v2 = adapter(top_k_v2_meta, TOP_K_V2, "top_k_v2")  # (CUDA's host fallback)
top_k_v2_grad = adapter(top_k_grad_meta, TOP_K_V2_GRAD, "top_k_v2_grad")


def _masked_select(ins, attrs):
    x, mask = np.broadcast_arrays(ins["X"], ins["Mask"])
    return {"Y": np.ascontiguousarray(x[mask])}


def _masked_select_grad(ins, attrs):
    x, mask, dy = ins["X"], ins["Mask"], ins["Y@GRAD"]
    shape = np.broadcast_shapes(x.shape, mask.shape)
    full = np.zeros(shape, dy.dtype)
    full[np.broadcast_to(mask, shape)] = dy
    return {"X@GRAD": unbroadcast(full, x.shape).astype(x.dtype, copy=False)}


MASKED_SELECT = fresh_kernel(_masked_select, "masked_select_out")
MASKED_SELECT_GRAD = fresh_kernel(_masked_select_grad, "masked_select_grad_out")
masked_select = adapter(masked_select_meta, MASKED_SELECT, "masked_select")  # (CUDA's host fallbacks)
masked_select_grad = adapter(masked_select_grad_meta, MASKED_SELECT_GRAD, "masked_select_grad")
