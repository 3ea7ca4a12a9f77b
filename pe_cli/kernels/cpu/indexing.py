"""Out-kernels of ops/indexing.py's and indexing_search.py's structured kernels (their meta rules: shapes/indexing.py):
where, where_index, argsort, unique, top_k, arg_max, arg_min and their gradients; numpy (top_k over wide float
rows: a numba loop, _top_k_loops.py; argsort's ties: _stl_sort_loops.py); slice's and
strided_slice's out-kernels are in slicing.py, gather's, gather_nd's, scatter's and one_hot's (and their
gradients') in gathering.py. The host-side checks and index arithmetic shared with the CUDA
kernels live in kernels/value_checks.py and shapes/indexing.py."""

import math

import numpy as np

from .runtime.loops import lazy, run_in_parts
from .elementwise import unbroadcast
from ...shapes.indexing import argsort_meta, top_k_grad_meta, unique_meta, where_index_meta, where_meta
from ..structured import adapter, fresh_output
from .launches import Launch, by_variant, floats, one
from .selecting import GREATER, LARGEST, SMALLEST, _stl_sort_loops, numba_rows, tied_rows

_top_k_loops = lazy("_top_k_loops")


# -- argsort, unique ---------------------------------------------------------------------------------


def sort_indices(x, axis, descending):
    """Stable argsort along ``axis``; descending keeps equal values in their order too."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - rev, axis)


def _std_sort_ties(x, idx, descending):
    """``idx`` (a stable sort's along the last axis) made Paddle's CPU argsort's, std::sort of (value, index)
    pairs, in the rows longer than 16 where a value repeats or NaN does (elsewhere the same): the numba loop of
    _stl_sort_loops.py. (Up to 16, std::sort is an insertion sort, which is stable.)"""
    n = x.shape[-1]
    if n <= 16 or not x.size:
        return idx
    rows, ids = x.reshape(-1, n), idx.reshape(-1, n)
    s = np.take_along_axis(rows, ids, axis=1)
    tied = s[:, 1:] == s[:, :-1]
    if s.dtype.kind in "fc":
        tied |= np.isnan(s[:, 1:]) & np.isnan(s[:, :-1])
    tied = tied.any(axis=1)
    if tied.any():
        found = np.empty((int(tied.sum()), n), np.int64)
        _stl_sort_loops().sort_rows(numba_rows(rows[tied]), LARGEST if descending else SMALLEST, found)
        ids[tied] = found
    return ids.reshape(idx.shape)


def _argsort(ins, outs, attrs, meta):
    """Out: X sorted along the axis (meta.args), Indices: where each came from (a stable sort, ties in the order
    of Paddle's CPU std::sort: _std_sort_ties)."""
    x, (axis,) = ins["X"], meta.args
    idx = np.moveaxis(sort_indices(x, axis, attrs["descending"]), axis, -1)
    idx = np.moveaxis(
        _std_sort_ties(np.moveaxis(x, axis, -1), np.ascontiguousarray(idx), attrs["descending"]), -1, axis
    )
    outs["Out"] = fresh_output(np.take_along_axis(x, idx, axis), meta.outputs["Out"], ins.values())
    outs["Indices"] = fresh_output(idx.astype(np.int64), meta.outputs["Indices"], ins.values())


def _argsort_scalar(ins, outs, attrs, meta):
    """A 0-D X: itself, at index 0 (Paddle 2.6's)."""
    outs["Out"], outs["Indices"] = ins["X"].copy(), np.zeros((), np.int64)


def _argsort_put(ins, outs, attrs, meta):
    dx = outs["X@GRAD"]
    dx.fill(0)
    np.put_along_axis(dx, ins["Indices"], ins["Out@GRAD"], meta.args[0])


def _argsort_grad_scalar(ins, outs, attrs, meta):
    np.copyto(outs["X@GRAD"], ins["Out@GRAD"], casting="unsafe")


ARGSORT = by_variant("argsort_out", None, sort=_argsort, scalar=_argsort_scalar)
ARGSORT_GRAD = by_variant("argsort_grad_out", None, put=_argsort_put, scalar=_argsort_grad_scalar)


def _unique_first(ins, outs, attrs, meta):
    """Fluid's unique: the distinct values in the order they first appear, each value's place among them, their
    counts (new arrays: numpy's)."""
    values, first, inverse, counts = np.unique(ins["X"], return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")  # distinct values in the order they first appear
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    dtype = meta.outputs["Index"][1]
    outs["Out"] = values[order]
    outs["Index"] = rank[inverse.reshape(-1)].astype(dtype)
    outs["Count"] = counts[order].astype(dtype)


def _unique_sorted(ins, outs, attrs, meta):
    """Paddle 2.x's unique: the distinct values of x flattened, or its distinct slices along axis (lexicographic
    order), ascending; where each first occurs, each element's (slice's) place among them, their counts."""
    x = ins["X"]
    axis = [a % x.ndim for a in attrs.get("axis") or ()]
    flat = x.reshape(-1) if not axis else x
    out, first, inverse, counts = np.unique(
        flat, return_index=True, return_inverse=True, return_counts=True, axis=axis[0] if axis else None
    )
    dtype = meta.outputs["Index"][1]
    outs["Out"] = np.ascontiguousarray(out)
    outs["Indices"] = first.astype(dtype)
    outs["Index"] = inverse.reshape(-1).astype(dtype)
    outs["Counts"] = counts.astype(dtype)


# (fresh: their lengths are the count of distinct values)
UNIQUE = by_variant("unique_out", None, first=_unique_first, sorted=_unique_sorted)


def _where(ins, outs, attrs, meta):
    outs["Out"] = fresh_output(np.where(ins["Condition"], ins["X"], ins["Y"]), meta.outputs["Out"], ins.values())


def _where_rows(ins, outs, attrs, meta):
    """A condition constant over the trailing dims (a beam search's finished beams over the vocabulary): Y copied,
    then the rows it holds from X (np.where tests every value: 2.2 against 1.0 ms on [64, 4, 10,000] float32,
    2-core AMD EPYC VM)."""
    cond, x, y, out = ins["Condition"], ins["X"], ins["Y"], outs["Out"]
    (dims,) = meta.args
    shape = out.shape
    out[...] = y
    lead = len(dims)
    mask = np.broadcast_to(cond.reshape(dims), shape[:lead])
    if mask.any():
        x_dims = (1,) * (len(shape) - x.ndim) + x.shape
        if all(d == 1 for d in x_dims[:lead]):  # one row of X for all (no gather: 1.7 against 3.6 ms)
            out[mask] = x.reshape(x_dims[lead:])
        else:
            out[mask] = np.broadcast_to(x, shape)[mask]


WHERE = by_variant("where_out", None, where=_where, rows=_where_rows)
where = adapter(where_meta, WHERE, "where")  # (by name: tests of the beam search's rows)


def _where_grad(ins, outs, attrs, meta):
    """X@GRAD: Out@GRAD where Condition, Y@GRAD: where not, each summed to its input's shape where given."""
    cond, dout = ins["Condition"], ins["Out@GRAD"]
    zero = np.zeros((), dtype=dout.dtype)
    for slot, picked in (("X", np.where(cond, dout, zero)), ("Y", np.where(cond, zero, dout))):
        given = ins.get(slot)
        grad = picked if given is None else unbroadcast(picked, given.shape)
        outs[slot + "@GRAD"] = fresh_output(grad, meta.outputs[slot + "@GRAD"], ins.values())


WHERE_GRAD = by_variant("where_grad_out", None, where=_where_grad)


def where_index_out(ins, outs, attrs, meta):
    """Out: the coordinates of Condition's true elements (fresh: their count is Condition's values)."""
    c = ins["Condition"]
    outs["Out"] = np.argwhere(c).astype(np.int64, order="C").reshape(-1, c.ndim)  # (argwhere's is F-ordered)


# -- top_k, arg_max, arg_min: out-kernels of the variants their meta rules choose (shapes/indexing.py)


def _pick(x, idx, out):
    """out = X's values at ``idx`` along its last dim (numpy's take_along_axis), written into ``out``."""
    n, k = x.shape[-1], idx.shape[-1]
    rows = x.reshape(-1, n)
    flat = idx.reshape(-1, k) + (np.arange(rows.shape[0]) * n)[:, None]
    np.take(rows.reshape(-1), flat, out=out.reshape(-1, k), mode="clip")


def _top_k_argmax(ins, outs, attrs, meta):
    """k = 1: the first largest of each row (rows holding NaN: Paddle's order, _paddle_ties)."""
    x, idx = ins["X"], outs["Indices"]
    np.argmax(x, axis=-1, out=idx.reshape(x.shape[:-1]))
    _paddle_ties(x, idx, False)
    _pick(x, idx, outs["Out"])


def _paddle_ties(x, idx, ties=True, known=False):
    """``idx`` ([..., k], a stable sort's of -x) made the top_k op's where its CPU kernel's std::partial_sort
    (comparing ``l > r``) leaves another order, by _stl_sort_loops.py's loop: the rows where one of the k values
    occurs again in the row (``ties``) or NaN does; ``known``: ``ties`` is the [rows] mask of them."""
    n, k = x.shape[-1], idx.shape[-1]
    rows, ids = x.reshape(-1, n), idx.reshape(-1, k)
    if known:
        tied = ties
    else:
        tied = tied_rows(rows, np.take_along_axis(rows, ids, axis=1), True) if ties else np.zeros(len(rows), bool)
        if rows.dtype.kind == "f":
            tied |= np.isnan(rows).any(axis=1)
    if tied.any():
        found = np.empty((int(tied.sum()), k), np.int64)
        _stl_sort_loops().partial_sort_rows(numba_rows(rows[tied]), k, GREATER, found)
        ids[tied] = found


def _top_k_rows(ins, outs, attrs, meta):
    """k * 4 below a float row's length: the numba loop a row (_top_k_by_rows)."""
    x, idx = ins["X"], outs["Indices"]
    _top_k_by_rows(x, attrs["k"], idx.reshape(-1, attrs["k"]))
    _pick(x, idx, outs["Out"])


def _top_k_fresh(idx):
    def out(ins, outs, attrs, meta):
        x = ins["X"]
        found = np.ascontiguousarray(idx(x, attrs["k"]))
        _paddle_ties(x, found)
        outs["Out"] = fresh_output(np.take_along_axis(x, found, axis=-1), meta.outputs["Out"], ins.values())
        outs["Indices"] = fresh_output(found, meta.outputs["Indices"], ins.values())

    return out


def _stable_top(x, k):
    """A stable sort of -x: the largest first and, among equal values, the lowest index first."""
    return np.argsort(-x, axis=-1, kind="stable")[..., :k]


def _top_k_launches(op, table, meta):
    """A planned step's launch of "argmax" (k = 1) over float rows: _top_k_loops.top_1_rows, numpy's argmax and the
    order _paddle_ties gives a row holding NaN in one loop, the value picked (the same indices and values); None for
    the other variants and a K given by a tensor (a Python launch)."""
    x, out, idx = one(op, "X"), one(op, "Out", "outputs"), one(op, "Indices", "outputs")
    if meta.variant != "argmax" or op.inputs.get("K") or None in (x, out, idx) or len(op.output_arg_names) != 2:
        return None
    if not floats(table, x, out) or table.get(idx, (None, None))[1] != np.int64:
        return None
    shape = table[x][0]
    rows = math.prod(shape[:-1])
    args = [("var", x, (rows, shape[-1])), ("var", idx, (rows,)), ("var", out, (rows,))]
    return [Launch(_top_k_loops().top_1_rows, args, writes=[out, idx])]


TOP_K = by_variant(
    "top_k_out",
    _top_k_launches,
    argmax=_top_k_argmax,
    rows=_top_k_rows,
    partitioned=_top_k_fresh(lambda x, k: _top_k_partitioned(-x, k)),
    sort=_top_k_fresh(_stable_top),
)


def _top_k_by_rows(x, k, idx):
    """top_k's indices into ``idx`` ([rows, k]) by the numba loop (_top_k_loops.py), one pass a row; rows holding
    NaN sorted whole."""
    rows = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    nan_rows, tied = np.empty(rows.shape[0], np.bool_), np.empty(rows.shape[0], np.bool_)
    run_in_parts(_top_k_loops(), "top_k_rows", rows.size, rows, k, idx, nan_rows, tied)
    _paddle_ties(rows, idx, nan_rows | tied, known=True)


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


def _top_k_grad(ins, outs, attrs, meta):
    """X@GRAD: Out@GRAD at the positions top_k took (Indices along the last dim), 0 elsewhere."""
    dx = outs["X@GRAD"]
    dx.fill(0)
    np.put_along_axis(dx, np.asarray(ins["Indices"], dtype=np.int64), ins["Out@GRAD"], axis=-1)


TOP_K_GRAD = by_variant("top_k_grad_out", None, put=_top_k_grad)
top_k_grad = adapter(top_k_grad_meta, TOP_K_GRAD, "top_k_grad")  # (CUDA's host fallback)


def _arg_out(fn):
    def flatten(ins, outs, attrs, meta):
        outs["Out"][...] = fn(ins["X"])

    def zero(ins, outs, attrs, meta):
        outs["Out"].fill(0)

    def along(ins, outs, attrs, meta):
        fn(ins["X"], axis=meta.args[0], keepdims=attrs["keepdims"], out=outs["Out"])

    def cast(ins, outs, attrs, meta):  # (a 1-D X without keepdims: 0-D, as Fluid 1.8.5's)
        found = fn(ins["X"], axis=meta.args[0], keepdims=attrs["keepdims"])
        outs["Out"] = fresh_output(np.asarray(found.astype(meta.outputs["Out"][1])), meta.outputs["Out"], ins.values())

    return by_variant(f"{fn.__name__}_out", None, flatten=flatten, zero=zero, axis=along, cast=cast)


ARG_MAX = _arg_out(np.argmax)
ARG_MIN = _arg_out(np.argmin)

# (the kernels by name CUDA runs on the host: kernels/cuda/indexing.py's HOST_OPS)
argsort = adapter(argsort_meta, ARGSORT, "argsort")
unique = adapter(unique_meta, UNIQUE, "unique")
where_index = adapter(where_index_meta, where_index_out, "where_index")
