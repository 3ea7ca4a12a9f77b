"""Kernels of ops/indexing.py: numpy (top_k over wide float rows: a numba loop, _top_k_loops.py); slice's and
strided_slice's out-kernels are in slicing.py. The host-side checks and index arithmetic shared with the CUDA
kernels live in kernels/value_checks.py and shapes/indexing.py."""

import numpy as np

from ..value_checks import gather_rows, nd_offsets, one_hot_ids, scatter_ids
from .runtime.loops import is_float, lazy
from .elementwise import unbroadcast
from .embedding import add_rows
from ...shapes.indexing import arg_dtype, top_k_mismatch

_top_k_loops = lazy("_top_k_loops")


# -- scatter, gather_nd -------------------------------------------------------------------------------


def scatter(ins, attrs):
    x, upd = ins["X"], ins["Updates"]
    ids = scatter_ids(ins["Ids"], x.shape[0])
    out = x.copy()
    if attrs["overwrite"]:
        out[ids] = upd  # numpy assigns in order: a repeated id keeps its last row
    else:
        out[ids] = 0
        np.add.at(out, ids, upd)
    return {"Out": out}


def scatter_grad(ins, attrs):
    dout = ins["Out@GRAD"]
    ids = scatter_ids(ins["Ids"], dout.shape[0])
    dx = dout.copy()
    dx[ids] = 0
    return {"X@GRAD": dx, "Updates@GRAD": np.ascontiguousarray(dout[ids])}


def gather_nd(ins, attrs):
    x, index = ins["X"], ins["Index"]
    offs, inner = nd_offsets(index, x.shape)
    k = index.shape[-1]
    out = x.reshape(-1, inner)[offs]
    return {"Out": out.reshape(tuple(index.shape[:-1]) + tuple(x.shape[k:]) or (1,))}


def gather_nd_grad(ins, attrs):
    x, index, dout = ins["X"], ins["Index"], ins["Out@GRAD"]
    offs, inner = nd_offsets(index, x.shape)
    dx = np.zeros((x.size // inner if inner else 0, inner), dtype=x.dtype)
    np.add.at(dx, offs, dout.reshape(-1, inner))
    return {"X@GRAD": dx.reshape(x.shape)}


# -- argsort, unique ---------------------------------------------------------------------------------


def sort_indices(x, axis, descending):
    """Stable argsort along ``axis``; descending keeps equal values in their order too."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - rev, axis)


def argsort(ins, attrs):
    x = ins["X"]
    if not x.ndim:  # a 0-D X: itself, at index 0 (Paddle 2.6's)
        return {"Out": x.copy(), "Indices": np.zeros((), np.int64)}
    axis = attrs["axis"] % x.ndim
    idx = sort_indices(x, axis, attrs["descending"])
    return {"Out": np.take_along_axis(x, idx, axis), "Indices": np.ascontiguousarray(idx.astype(np.int64))}


def argsort_grad(ins, attrs):
    x, idx, dout = ins["X"], ins["Indices"], ins["Out@GRAD"]
    if not x.ndim:
        return {"X@GRAD": np.array(dout, dtype=x.dtype)}
    dx = np.zeros(x.shape, dtype=x.dtype)
    np.put_along_axis(dx, idx, dout, attrs["axis"] % x.ndim)
    return {"X@GRAD": dx}


def unique(ins, attrs):
    x = ins["X"]
    if attrs.get("is_sorted"):
        return _sorted_unique(x, attrs)
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")  # distinct values in the order they first appear
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    dtype = np.dtype(attrs["dtype"])
    return {
        "Out": values[order],
        "Index": rank[inverse.reshape(-1)].astype(dtype),
        "Count": counts[order].astype(dtype),
    }


def _sorted_unique(x, attrs):
    """Paddle 2.x's unique: the distinct values of x flattened, or its distinct slices along axis (lexicographic
    order), ascending; where each first occurs, each element's (slice's) place among them, their counts."""
    axis = [a % x.ndim for a in attrs["axis"]]
    flat = x.reshape(-1) if not axis else x
    out, first, inverse, counts = np.unique(
        flat, return_index=True, return_inverse=True, return_counts=True, axis=axis[0] if axis else None
    )
    dtype = np.dtype(attrs["dtype"])
    return {
        "Out": out,
        "Indices": first.astype(dtype),
        "Index": inverse.reshape(-1).astype(dtype),
        "Counts": counts.astype(dtype),
    }


def gather(ins, attrs):
    x = ins["X"]
    return {"Out": np.take(x, gather_rows(ins["Index"], x.shape[0]), axis=0)}


def gather_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    dx, idx = np.zeros_like(x), gather_rows(ins["Index"], x.shape[0])
    if dx.size and dout.size:
        add_rows(dx.reshape(x.shape[0], -1), idx, dout.reshape(idx.size, -1))
    return {"X@GRAD": dx}


def one_hot(ins, attrs):
    x, depth = ins["X"], attrs["depth"]
    ids = one_hot_ids(x, depth, attrs["allow_out_of_range"])
    return {"Out": (ids[..., None] == np.arange(depth)).astype(attrs["dtype"])}


def one_hot_v2(ins, attrs):
    x = np.asarray(ins["X"])
    return one_hot({"X": x.reshape(x.shape + (1,))}, attrs)


def where(ins, attrs):
    cond, x, y = ins["Condition"], ins["X"], ins["Y"]
    if cond.shape == x.shape == y.shape:
        return {"Out": np.where(cond, x, y)}
    shape = np.broadcast_shapes(cond.shape, x.shape, y.shape)
    rows = _condition_rows(cond, len(shape))
    if rows is None:
        return {"Out": np.where(cond, x, y)}
    # a condition constant over the trailing dims (a beam search's finished beams over the vocabulary):
    # Y copied, then the rows it holds from X (np.where tests every value: 2.2 against 1.0 ms on
    # [64, 4, 10,000] float32, 2-core AMD EPYC VM)
    out = np.empty(shape, np.result_type(x, y))
    out[...] = y
    lead = rows.ndim
    mask = np.broadcast_to(rows, shape[:lead])
    if mask.any():
        x_dims = (1,) * (len(shape) - x.ndim) + x.shape
        if all(d == 1 for d in x_dims[:lead]):  # one row of X for all (no gather: 1.7 against 3.6 ms)
            out[mask] = x.reshape(x_dims[lead:])
        else:
            out[mask] = np.broadcast_to(x, shape)[mask]
    return {"Out": out}


def _condition_rows(cond, rank):
    """Condition as [leading dims] when it is 1 along a run of trailing dims of the output (rank
    ``rank``) and has at least one leading dim; else None."""
    dims = (1,) * (rank - cond.ndim) + cond.shape
    lead = len(dims)
    while lead and dims[lead - 1] == 1:
        lead -= 1
    if lead == 0 or lead == rank:
        return None
    return cond.reshape(dims[:lead])


def where_grad(ins, attrs):
    cond, dout = ins["Condition"], ins["Out@GRAD"]
    zero = np.zeros((), dtype=dout.dtype)
    grads = {"X@GRAD": np.where(cond, dout, zero), "Y@GRAD": np.where(cond, zero, dout)}
    for slot in ("X", "Y"):
        if ins.get(slot) is not None:
            grads[slot + "@GRAD"] = unbroadcast(grads[slot + "@GRAD"], ins[slot].shape)
    return grads


def where_index(ins, attrs):
    c = ins["Condition"]
    return {"Out": np.argwhere(c).astype(np.int64).reshape(-1, c.ndim)}


def top_k(ins, attrs):
    x = ins["X"]
    k = attrs["k"]
    if error := top_k_mismatch(k, x.shape):
        raise ValueError(error)
    if k == 1:
        idx = np.argmax(x, axis=-1)[..., None]
    elif 4 * k < x.shape[-1] and is_float(x):
        idx = _top_k_by_rows(x, k)
    elif 4 * k < x.shape[-1]:
        idx = _top_k_partitioned(-x, k)
    else:
        # Stable sort of -x: the largest first and, among equal values, the lowest index first.
        idx = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return {"Out": np.take_along_axis(x, idx, axis=-1), "Indices": idx.astype(np.int64, copy=False)}


def _top_k_by_rows(x, k):
    """top_k's indices by the numba loop (_top_k_loops.py), one pass a row; rows holding NaN sorted whole."""
    rows = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    idx, nan_rows = np.empty((rows.shape[0], k), np.int64), np.empty(rows.shape[0], np.bool_)
    _top_k_loops().top_k_rows(rows, k, idx, nan_rows)
    if nan_rows.any():
        idx[nan_rows] = np.argsort(-rows[nan_rows], axis=-1, kind="stable")[:, :k]
    return idx.reshape(x.shape[:-1] + (k,))


def _top_k_partitioned(keys, k):
    """The indices of the ``k`` smallest ``keys`` along the last axis in the order of a stable sort
    (equal keys: the lowest index first), without sorting the whole row: a partition finds each row's
    k-th key, the keys at most it are taken in index order and only they are sorted (stable). A row
    with a tie at the k-th key (more than k such keys) or NaNs among its k smallest is sorted whole.
    A beam search's top_k over beam x vocabulary (4 of 40,000) ran 0.8 s a call as a full sort."""
    rows = keys.reshape(-1, keys.shape[-1])
    kth = np.partition(rows, k - 1, axis=-1)[:, k - 1 : k]
    taken = rows <= kth
    plain = np.count_nonzero(taken, axis=-1) == k
    if plain.all():
        idx = _sorted_candidates(rows, taken, k)
    else:
        idx = np.empty((rows.shape[0], k), np.int64)
        if plain.any():
            idx[plain] = _sorted_candidates(rows[plain], taken[plain], k)
        idx[~plain] = np.argsort(rows[~plain], axis=-1, kind="stable")[:, :k]
    return idx.reshape(keys.shape[:-1] + (k,))


def _sorted_candidates(rows, taken, k):
    cand = np.nonzero(taken)[1].reshape(-1, k)  # each row's k indices, ascending
    order = np.argsort(np.take_along_axis(rows, cand, axis=-1), axis=-1, kind="stable")
    return np.take_along_axis(cand, order, axis=-1)


def top_k_grad(ins, attrs):
    """X@GRAD: Out@GRAD at the positions top_k took (Indices along the last dim), 0 elsewhere."""
    x, dout = ins["X"], ins["Out@GRAD"]
    dx = np.zeros(x.shape, dout.dtype)
    np.put_along_axis(dx, np.asarray(ins["Indices"], dtype=np.int64), dout, axis=-1)
    return {"X@GRAD": dx}


def _arg(fn):
    def kernel(ins, attrs):
        x = ins["X"]
        if attrs["flatten"]:
            return {"Out": np.array([fn(x)], dtype=arg_dtype(attrs))}
        if not x.ndim:  # a 0-D X: index 0, 0-D ([1] with keepdims: Paddle 2.6's)
            return {"Out": np.zeros((1,) if attrs["keepdims"] else (), arg_dtype(attrs))}
        axis = attrs["axis"] % x.ndim
        out = fn(x, axis=axis, keepdims=attrs["keepdims"]).astype(arg_dtype(attrs), copy=False)
        return {"Out": np.asarray(out)}  # a 1-D X without keepdims: 0-D, as Fluid 1.8.5's

    return kernel


arg_max = _arg(np.argmax)
arg_min = _arg(np.argmin)
