"""Kernels of the selecting family (pe_cli/ops/selecting.py): top_k_v2 (and its gradient: out-kernels of
shapes/indexing.py's meta rules) in the order of Paddle's CPU kernel
(std::partial_sort, or nth_element and sort, of (value, index) pairs comparing values alone: equal values land
where libstdc++ leaves them, emulated step for step (_stl_order.py) for the rows that hold any), masked_select
by a boolean index."""

import numpy as np

from ...shapes.indexing import top_k_grad_meta, top_k_v2_meta
from ..structured import adapter, fresh_output
from . import _stl_order as _stl
from .elementwise import unbroadcast
from .launches import by_variant


def _before(largest):
    """Paddle's comparator of top_k_v2 (CPU): largest, NaN first, then larger values; smallest, smaller values,
    NaN last; no index order."""
    if largest:
        return lambda l, r: (l != l and r == r) or l > r
    return lambda l, r: (l == l and r != r) or l < r


def paddle_top_k(values, k, largest):
    """The indices of Paddle's CPU top_k_v2 (sorted) of one row: std::partial_sort of (value, index) pairs
    where k * 64 < the row's length, else std::nth_element at k - 1 and std::sort of the first k - 1."""
    a = [(v, i) for i, v in enumerate(values)]
    comp = _before(largest)
    if k * 64 < len(a):
        _stl.partial_sort(a, 0, k, len(a), comp)
    elif k > 0:
        _stl.nth_element(a, 0, k - 1, len(a), comp)
        _stl.sort(a, 0, k - 1, comp)
    return [i for _, i in a[:k]]


def _top_indices(rows, k, largest):
    """[rows, k] indices of each row's top k in Paddle's order: a stable sort where a row's values are all
    distinct numbers (the same result), Paddle's STL calls step for step where some repeat or are NaN (the
    order of Paddle's, which no stable rule gives)."""
    key = -rows.astype(np.float64) if largest else rows
    out = np.argsort(key, axis=1, kind="stable")[:, :k]
    for r in range(rows.shape[0]):
        row = rows[r]
        if len(np.unique(row)) != row.size or (row.dtype.kind == "f" and np.isnan(row).any()):
            out[r] = paddle_top_k(row.tolist(), k, largest)
    return out


def _top_k_v2(ins, outs, attrs, meta):
    """Out, Indices: the k best along the axis in Paddle's order, as the arrays numpy makes (fresh)."""
    x = ins["X"]
    xs = x.reshape(1) if x.ndim == 0 else x
    axis, k = attrs["axis"] % xs.ndim, int(attrs["k"])
    moved = np.moveaxis(xs, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    idx = _top_indices(rows, k, attrs["largest"]).reshape(moved.shape[:-1] + (k,))
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


def masked_select(ins, attrs):
    x, mask = np.broadcast_arrays(ins["X"], ins["Mask"])
    return {"Y": np.ascontiguousarray(x[mask])}


def masked_select_grad(ins, attrs):
    x, mask, dy = ins["X"], ins["Mask"], ins["Y@GRAD"]
    shape = np.broadcast_shapes(x.shape, mask.shape)
    full = np.zeros(shape, dy.dtype)
    full[np.broadcast_to(mask, shape)] = dy
    return {"X@GRAD": unbroadcast(full, x.shape).astype(x.dtype, copy=False)}
