"""Kernels of ops/indexing_extra.py: numpy, as the other indexing kernels. The host-side checks and
index arithmetic shared with the CUDA kernels live here too."""
import numpy as np

from ...errors import PeError
from ...shapes import strided_window


# -- strided_slice ------------------------------------------------------------------------------------

def strided_geometry(x_shape, attrs):
    """(first, sizes, steps) per dim, checked not to be empty."""
    first, sizes, steps = strided_window(tuple(x_shape), attrs["axes"], attrs["starts"], attrs["ends"],
                                         attrs["strides"])
    if 0 in sizes:
        raise PeError(f"strided_slice of Input {list(x_shape)} with axes={list(attrs['axes'])}, "
                      f"starts={list(attrs['starts'])}, ends={list(attrs['ends'])}, "
                      f"strides={list(attrs['strides'])} is empty")
    return first, sizes, steps


def decreased(sizes, attrs):
    """The output shape: the sizes without the decrease_axis dims."""
    drop = {d % len(sizes) for d in attrs["decrease_axis"]}
    return tuple(n for i, n in enumerate(sizes) if i not in drop) or (1,)


def _window(first, sizes, steps):
    return tuple(slice(f, f + n * s if f + n * s >= 0 else None, s) for f, n, s in zip(first, sizes, steps))


def strided_slice(ins, attrs):
    x = ins["Input"]
    first, sizes, steps = strided_geometry(x.shape, attrs)
    return {"Out": np.ascontiguousarray(x[_window(first, sizes, steps)]).reshape(decreased(sizes, attrs))}


def strided_slice_grad(ins, attrs):
    x, dout = ins["Input"], ins["Out@GRAD"]
    first, sizes, steps = strided_geometry(x.shape, attrs)
    dx = np.zeros(x.shape, dtype=x.dtype)
    dx[_window(first, sizes, steps)] = dout.reshape(sizes)
    return {"Input@GRAD": dx}


# -- unbind --------------------------------------------------------------------------------------

def unbind(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    shape = tuple(d for k, d in enumerate(x.shape) if k != axis) or (1,)
    return {"Out": [np.ascontiguousarray(np.take(x, i, axis=axis)).reshape(shape) for i in range(x.shape[axis])]}


# -- scatter, gather_nd -------------------------------------------------------------------------------

def scatter_ids(ids, rows):
    """Ids as a flat int64 array, checked to lie in [0, rows)."""
    ids = np.asarray(ids).reshape(-1).astype(np.int64)
    bad = (ids < 0) | (ids >= rows)
    if bad.any():
        raise PeError(f"scatter: Ids holds {int(ids[bad][0])}, outside the {rows} rows of X")
    return ids


def scatter(ins, attrs):
    x, upd = ins["X"], ins["Updates"]
    ids = scatter_ids(ins["Ids"], x.shape[0])
    out = x.copy()
    if attrs["overwrite"]:
        out[ids] = upd          # numpy assigns in order: a repeated id keeps its last row
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


def nd_offsets(index, x_shape):
    """For each row of Index's last dim: the flat offset (in slices of X's trailing dims) it picks,
    checked to lie inside X. Returns (offsets, slice size)."""
    index = np.asarray(index).astype(np.int64)
    k = index.shape[-1]
    dims = np.asarray(x_shape[:k], dtype=np.int64)
    rows = index.reshape(-1, k)
    bad = (rows < 0) | (rows >= dims)
    if bad.any():
        r = int(np.argwhere(bad)[0][0])
        raise PeError(f"gather_nd: Index row {rows[r].tolist()} is outside X {list(x_shape)}")
    strides = np.array([int(np.prod(x_shape[i + 1:k], dtype=np.int64)) for i in range(k)], dtype=np.int64)
    return rows @ strides if k else np.zeros(rows.shape[0], np.int64), int(np.prod(x_shape[k:], dtype=np.int64))


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
    axis = attrs["axis"] % x.ndim
    idx = sort_indices(x, axis, attrs["descending"])
    return {"Out": np.take_along_axis(x, idx, axis), "Indices": np.ascontiguousarray(idx.astype(np.int64))}


def argsort_grad(ins, attrs):
    x, idx, dout = ins["X"], ins["Indices"], ins["Out@GRAD"]
    dx = np.zeros(x.shape, dtype=x.dtype)
    np.put_along_axis(dx, idx, dout, attrs["axis"] % x.ndim)
    return {"X@GRAD": dx}


def unique(ins, attrs):
    x = ins["X"]
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")         # distinct values in the order they first appear
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    dtype = np.dtype(attrs["dtype"])
    return {"Out": values[order], "Index": rank[inverse.reshape(-1)].astype(dtype),
            "Count": counts[order].astype(dtype)}
