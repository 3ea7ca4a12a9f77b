"""CPU out-kernels of the gathers and scatters by index (the variants of shapes/gather.py's meta rules): gather,
gather_nd, scatter, scatter_nd_add, index_select and their gradients, one_hot and one_hot_v2. Each writes into the
buffers it is handed (numpy's take with ``out=``, mode "clip" so that it writes them unbuffered: the indices are
checked first, none is clipped; np.add.at into the zeroed buffer, a boolean compare cast into
it); each checks its indices' values against their range first, every run, with the one line the op always
gave (kernels/value_checks.py)."""

import numpy as np

from ..value_checks import checked_index, gather_rows, nd_offsets, nd_positions, one_hot_ids, scatter_ids
from .embedding import add_rows
from .launches import by_variant


# -- gather, gather_nd --------------------------------------------------------------------------------


def _gather(ins, outs, attrs, meta):
    """Out = X's rows at Index (X's first dim: the op's layout moves its axis there)."""
    x = ins["X"]
    np.take(x, gather_rows(ins["Index"], x.shape[0]), axis=0, out=outs["Out"], mode="clip")


def _gather_grad(ins, outs, attrs, meta):
    """X@GRAD = Out@GRAD's rows added at Index into zeros, repeated indices accumulating (embedding.add_rows)."""
    x, dout, dx = ins["X"], ins["Out@GRAD"], outs["X@GRAD"]
    idx = gather_rows(ins["Index"], x.shape[0])
    dx.fill(0)
    if dx.size and dout.size:
        add_rows(dx.reshape(x.shape[0], -1), idx, dout.reshape(idx.size, -1))


def _gather_nd(ins, outs, attrs, meta):
    """Out[i...] = the element or slice of X at Index[i..., :] (each a flat offset in slices, checked)."""
    x = ins["X"]
    offs, inner = nd_offsets(ins["Index"], x.shape)
    rows = x.reshape(-1, inner)
    np.take(rows, offs, axis=0, out=outs["Out"].reshape(offs.size, inner), mode="clip")


def _gather_nd_grad(ins, outs, attrs, meta):
    x, dx = ins["X"], outs["X@GRAD"]
    offs, inner = nd_offsets(ins["Index"], x.shape)
    dx.fill(0)
    np.add.at(dx.reshape(x.size // inner if inner else 0, inner), offs, ins["Out@GRAD"].reshape(-1, inner))


GATHER = by_variant("gather_out", None, take=_gather)
GATHER_GRAD = by_variant("gather_grad_out", None, add_rows=_gather_grad)
GATHER_ND = by_variant("gather_nd_out", None, take=_gather_nd)
GATHER_ND_GRAD = by_variant("gather_nd_grad_out", None, add_at=_gather_nd_grad)


# -- scatter, scatter_nd_add --------------------------------------------------------------------------


def _scatter_overwrite(ins, outs, attrs, meta):
    """Out = X with its rows Ids replaced by Updates' (numpy assigns in order: a repeated id keeps its last)."""
    x, out = ins["X"], outs["Out"]
    ids = scatter_ids(ins["Ids"], x.shape[0])
    np.copyto(out, x)
    out[ids] = ins["Updates"]


def _scatter_add(ins, outs, attrs, meta):
    """Out = X with its rows Ids set to the sum of their Updates rows."""
    x, out = ins["X"], outs["Out"]
    ids = scatter_ids(ins["Ids"], x.shape[0])
    np.copyto(out, x)
    out[ids] = 0
    np.add.at(out, ids, ins["Updates"])


def _scatter_grad(ins, outs, attrs, meta):
    """X@GRAD: Out@GRAD with the rows Ids zeroed; Updates@GRAD: the rows Ids of Out@GRAD (as Fluid)."""
    dout, dx = ins["Out@GRAD"], outs["X@GRAD"]
    ids = scatter_ids(ins["Ids"], dout.shape[0])
    np.copyto(dx, dout)
    dx[ids] = 0
    np.take(dout, ids, axis=0, out=outs["Updates@GRAD"], mode="clip")


def _scatter_nd_add(ins, outs, attrs, meta):
    """Out = X with each Updates[i...] added at X[Index[i..., :]] (np.add.at: repeated indices add up)."""
    x, index, out = ins["X"], ins["Index"], outs["Out"]
    k = index.shape[-1]
    positions = nd_positions(x.shape, index, "scatter_nd_add")
    np.copyto(out, x)
    rows = out.reshape((-1,) + x.shape[k:])
    np.add.at(rows, positions, ins["Updates"].reshape((len(positions),) + x.shape[k:]))


def _scatter_nd_add_grad(ins, outs, attrs, meta):
    """X@GRAD: Out@GRAD; Updates@GRAD: Out@GRAD at Index's rows."""
    index, dout = ins["Index"], ins["Out@GRAD"]
    k = index.shape[-1]
    positions = nd_positions(dout.shape, index, "scatter_nd_add_grad")
    np.copyto(outs["X@GRAD"], dout)
    picked = outs["Updates@GRAD"].reshape((len(positions),) + dout.shape[k:])
    np.take(dout.reshape((-1,) + dout.shape[k:]), positions, axis=0, out=picked, mode="clip")


SCATTER = by_variant("scatter_out", None, overwrite=_scatter_overwrite, add=_scatter_add)
SCATTER_GRAD = by_variant("scatter_grad_out", None, rows=_scatter_grad)
SCATTER_ND_ADD = by_variant("scatter_nd_add_out", None, add_at=_scatter_nd_add)
SCATTER_ND_ADD_GRAD = by_variant("scatter_nd_add_grad_out", None, rows=_scatter_nd_add_grad)


# -- index_select -------------------------------------------------------------------------------------


def _index_select(ins, outs, attrs, meta):
    """Out = the slices of X along the dim (meta.args) at Index."""
    x, (dim,) = ins["X"], meta.args
    index = checked_index(ins["Index"].reshape(-1), x.shape[dim], "index_select")
    np.take(x, index, axis=dim, out=outs["Out"], mode="clip")


def _index_select_grad(ins, outs, attrs, meta):
    """X@GRAD = Out@GRAD's slices added at Index along the dim into zeros (np.add.at: repeats add up)."""
    x, dout, dx, (dim,) = ins["X"], ins["Out@GRAD"], outs["X@GRAD"], meta.args
    index = checked_index(ins["Index"].reshape(-1), x.shape[dim], "index_select_grad")
    dx.fill(0)
    np.add.at(np.moveaxis(dx, dim, 0), index, np.moveaxis(dout, dim, 0))


INDEX_SELECT = by_variant("index_select_out", None, take=_index_select)
INDEX_SELECT_GRAD = by_variant("index_select_grad_out", None, add_at=_index_select_grad)


# -- one_hot, one_hot_v2 ------------------------------------------------------------------------------


def _equal(ins, outs, attrs, meta):
    """Out[..., j] = ids[...] == j: the compare cast into Out (a narrow depth's)."""
    ids = one_hot_ids(_with_1(ins, meta), attrs["depth"], attrs["allow_out_of_range"])
    np.equal(ids[..., None], np.arange(attrs["depth"]), out=outs["Out"], casting="unsafe")


def _put(ins, outs, attrs, meta):
    """Out zeroed, then a 1 put at each id in range (a wide depth's: no compare over every class)."""
    depth = attrs["depth"]
    ids = one_hot_ids(_with_1(ins, meta), depth, attrs["allow_out_of_range"]).reshape(-1)
    rows = outs["Out"].reshape(ids.size, depth)
    rows.fill(0)
    if attrs["allow_out_of_range"]:
        kept = (ids >= 0) & (ids < depth)
        rows[np.flatnonzero(kept), ids[kept]] = 1
    else:
        rows[np.arange(ids.size), ids] = 1


def _with_1(ins, meta):
    """X ending in a dim of 1: one_hot's as it is, one_hot_v2's ids of any shape given one (``meta.args``)."""
    x = np.asarray(ins["X"])
    return x if meta.args[0] else x.reshape(x.shape + (1,))


ONE_HOT = by_variant("one_hot_out", None, equal=_equal, put=_put)
