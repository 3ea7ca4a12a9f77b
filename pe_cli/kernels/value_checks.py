"""Checks of index and value arrays on the host that the kernels of both devices make before they use them
(ids inside a table, indices inside X, lengths inside the input, no integer division by zero, a
row-sparse input where one is needed): each returns the checked values or raises PeError naming the op."""

import math

import numpy as np

from ..base.errors import PeError
from ..base.selected_rows import SelectedRows
from ..shapes.selected_rows import sparse_input  # noqa: F401 (the meta rules' refusal, CUDA's kernels make it too)


def gather_rows(index, n):
    """gather's Index as a flat int64 array, checked to lie in [0, n)."""
    idx = index.reshape(-1).astype(np.int64, copy=False)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise PeError(f"gather: index {bad} is out of range for X with {n} rows")
    return idx


def one_hot_ids(x, depth, allow_out_of_range):
    """one_hot's X [..., 1] as int64 ids [...], checked to lie in [0, depth) unless allowed not to (and to end in
    a dim of 1: Fluid builds one that ends in more, whose kernel then writes past Out)."""
    if x.shape[-1:] != (1,):
        raise PeError(f"one_hot: X {list(x.shape)} must end in a dim of size 1 (ids shaped [N, 1])")
    ids = x.reshape(x.shape[:-1]).astype(np.int64, copy=False)
    outside = (ids < 0) | (ids >= depth)
    if outside.any() and not allow_out_of_range:
        raise PeError(
            f"one_hot: id {ids[outside][0]} is outside [0, {depth}); "
            f"pass allow_out_of_range=True to get an all-zero row instead"
        )
    return ids


def table_ids(ids, w_shape, pad):
    """lookup_table's Ids as a flat int64 array, checked to lie in [0, rows of W) or be ``pad``."""
    flat = ids.reshape(-1).astype(np.int64, copy=False)
    bad = (flat < 0) | (flat >= w_shape[0])
    if pad >= 0:
        bad &= flat != pad
    if bad.any():
        raise PeError(f"Ids hold {int(flat[bad][0])}, outside the table of {w_shape[0]} rows (W {list(w_shape)})")
    return flat


def check_divisor(y, op):
    """Fluid stops on an integer division by zero; so does pe, with the op's name."""
    if y.dtype.kind in "iu" and not np.all(y):
        raise PeError(f"{op}: Y holds a zero; integer division by zero")


def scatter_ids(ids, rows):
    """Ids as a flat int64 array, checked to lie in [0, rows)."""
    ids = np.asarray(ids).reshape(-1).astype(np.int64)
    bad = (ids < 0) | (ids >= rows)
    if bad.any():
        raise PeError(f"scatter: Ids holds {int(ids[bad][0])}, outside the {rows} rows of X")
    return ids


def nd_offsets(index, x_shape):
    """For each row of Index's last dim: the flat offset (in slices of X's trailing dims) it picks,
    checked to lie inside X. Returns (offsets, slice size)."""
    index = np.asarray(index)
    k = index.shape[-1]
    rows = index.reshape(math.prod(index.shape[:-1]), k).astype(np.int64, copy=False)  # k may be 0
    shape = [int(d) for d in x_shape]
    inner = math.prod(shape[k:])
    if not k:
        return np.zeros(rows.shape[0], np.int64), inner
    bad = (rows < 0) | (rows >= np.array(shape[:k], dtype=np.int64))
    if bad.any():
        r = int(np.argwhere(bad)[0][0])
        raise PeError(f"gather_nd: Index row {rows[r].tolist()} is outside X {list(x_shape)}")
    strides = [1] * k  # in slices: the product of the indexed dims after each
    for i in range(k - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return rows @ np.array(strides, dtype=np.int64), inner


def checked_index(index, size, op, what="Index"):
    """``index`` as int64 after checking it is in [0, size)."""
    index = np.asarray(index).astype(np.int64, copy=False)
    bad = (index < 0) | (index >= size)
    if np.any(bad):
        raise PeError(f"{op}: {what} holds {int(index[bad].reshape(-1)[0])}, outside [0, {size})")
    return index


def nd_positions(x_shape, index, op):
    """Index's rows (its last dim: k coordinates) as flat positions of X's first k dims, checked (k = 0: every
    row is all of X)."""
    k = index.shape[-1]
    flat = index.reshape(int(np.prod(index.shape[:-1])), k).astype(np.int64, copy=False)
    dims = np.asarray(x_shape[:k], np.int64)
    bad = np.any((flat < 0) | (flat >= dims), axis=1)
    if np.any(bad):
        raise PeError(f"{op}: Index row {flat[bad][0].tolist()} is outside X {list(x_shape)}")
    return np.ravel_multi_index(tuple(flat.T), tuple(x_shape[:k])) if k else np.zeros(len(flat), np.int64)


def bpr_ids(x_shape, label):
    """The positive item of each row of X (shaped ``x_shape``), checked to lie among its items."""
    items = x_shape[-1]
    ids = np.asarray(label).reshape(-1).astype(np.int64)
    bad = (ids < 0) | (ids >= items)
    if bad.any():
        raise PeError(f"bpr_loss: Label holds {int(ids[bad][0])}, outside the {items} items of X {list(x_shape)}")
    if items < 2:
        raise PeError(f"bpr_loss: X {list(x_shape)} needs at least 2 items per row")
    return ids


def center_ids(label, clusters):
    """center_loss's Label as a flat int64 array, checked to name one of the ``clusters`` centers."""
    ids = np.asarray(label).reshape(-1).astype(np.int64)
    bad = (ids < 0) | (ids >= clusters)
    if bad.any():
        raise PeError(f"center_loss: Label holds {int(ids[bad][0])}, outside the {clusters} centers")
    return ids


def check_dequant_ids(ids, rows, pad):
    """lookup_table_dequant's Ids, checked to lie in [0, rows) or be ``pad``."""
    bad = ((ids < 0) | (ids >= rows)) & (ids != pad)
    if bad.any():
        raise PeError(f"lookup_table_dequant: Ids must be in [0, {rows}) (or padding_idx {pad}), got {ids[bad][:3]}")


def split_rows(x, sections, take):
    """The SelectedRows of ``x``'s row runs ``sections`` (heights), rows renumbered from each run's
    first row; ``take(values, keep)`` gathers the values at host indices ``keep``."""
    out, row0 = [], 0
    for height in sections:
        keep = np.flatnonzero((x.rows >= row0) & (x.rows < row0 + height))
        out.append(SelectedRows(x.rows[keep] - row0, take(x.values, keep), height))
        row0 += height
    return out


def warprnnt_inputs(x_shape, label, t_lens, u_lens, blank):
    """The lengths and labels as int64 arrays, after checking them against input [B, T, U + 1, V]."""
    b, t, u1, v = x_shape
    t_lens, u_lens, label = (np.asarray(a, np.int64) for a in (t_lens, u_lens, label))
    if t_lens.shape != (b,) or u_lens.shape != (b,):
        raise PeError(
            f"warprnnt: input_lengths {list(t_lens.shape)} and label_lengths {list(u_lens.shape)} must be [{b}]"
        )
    if t_lens.size and (t_lens.min() < 1 or t_lens.max() > t or u_lens.min() < 0 or u_lens.max() > u1 - 1):
        raise PeError(
            f"warprnnt: input_lengths {t_lens.tolist()} must be in [1, {t}] and label_lengths "
            f"{u_lens.tolist()} in [0, {u1 - 1}]"
        )
    if not 0 <= blank < v:
        raise PeError(f"warprnnt: blank {blank} is not one of the input's {v} classes")
    used = label[np.arange(u1 - 1)[None, :] < u_lens[:, None]]
    if used.size and (used.min() < 0 or used.max() >= v):
        raise PeError(f"warprnnt: labels must be in [0, {v}), got {int(used.min())}..{int(used.max())}")
    return label, t_lens, u_lens


def not_invertible(x_shape):
    """inverse's refusal of a batch of matrices one of which has no inverse (to raise)."""
    return PeError(f"inverse: a matrix of Input {list(x_shape)} is singular (it has no inverse)")


def not_positive_definite(x_shape):
    """cholesky's refusal of a batch of matrices one of which is not positive definite (to raise)."""
    return PeError(f"cholesky: a matrix of X {list(x_shape)} is not positive definite")
