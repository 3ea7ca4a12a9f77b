"""The gather_scatter family on the CPU (ops/gather_scatter.py), numpy fancy indexing: index_select,
index_sample, multiplex, scatter_nd_add (np.add.at, so repeated indices add up) and shard_index, each
index checked against its range first (Fluid's CPU kernels refuse an index outside it)."""

import numpy as np

from ...base.errors import PeError
from ..value_checks import checked_index, nd_positions


def index_select(ins, attrs):
    x = ins["X"]
    dim = attrs["dim"] % x.ndim
    index = checked_index(ins["Index"].reshape(-1), x.shape[dim], "index_select")
    return {"Out": np.take(x, index, axis=dim)}


def index_select_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    dim = attrs["dim"] % x.ndim
    index = checked_index(ins["Index"].reshape(-1), x.shape[dim], "index_select_grad")
    dx = np.zeros(x.shape, dout.dtype)
    np.add.at(np.moveaxis(dx, dim, 0), index, np.moveaxis(dout, dim, 0))
    return {"X@GRAD": dx}


def index_sample(ins, attrs):
    x = ins["X"]
    index = checked_index(ins["Index"], x.shape[1], "index_sample")
    return {"Out": np.take_along_axis(x, index, axis=1)}


def index_sample_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    index = checked_index(ins["Index"], x.shape[1], "index_sample_grad")
    dx = np.zeros(x.shape, dout.dtype)
    np.add.at(dx, (np.arange(x.shape[0])[:, None], index), dout)
    return {"X@GRAD": dx}


def multiplex(ins, attrs):
    xs = ins["X"]
    ids = checked_index(ins["Ids"].reshape(-1), len(xs), "multiplex", "Ids")
    stacked = np.stack(xs)
    return {"Out": stacked[ids, np.arange(len(ids))]}


def multiplex_grad(ins, attrs, ctx):
    dout = ins["Out@GRAD"]
    ids = ins["Ids"].reshape(-1).astype(np.int64, copy=False)
    grads = [np.zeros_like(dout) for _ in range(ctx.output_counts["X@GRAD"])]
    for k, g in enumerate(grads):
        rows = ids == k
        g[rows] = dout[rows]
    return {"X@GRAD": grads}


def scatter_nd_add(ins, attrs):
    x, index, updates = ins["X"], ins["Index"], ins["Updates"]
    k = index.shape[-1]
    positions = nd_positions(x.shape, index, "scatter_nd_add")
    out = np.array(x, copy=True)
    rows = out.reshape((-1,) + x.shape[k:])
    np.add.at(rows, positions, updates.reshape((len(positions),) + x.shape[k:]))
    return {"Out": out}


def scatter_nd_add_grad(ins, attrs):
    index, updates, dout = ins["Index"], ins["Updates"], ins["Out@GRAD"]
    k = index.shape[-1]
    positions = nd_positions(dout.shape, index, "scatter_nd_add_grad")
    picked = dout.reshape((-1,) + dout.shape[k:])[positions]
    return {"X@GRAD": np.array(dout, copy=True), "Updates@GRAD": picked.reshape(updates.shape)}


def shard_index_check(attrs):
    """Fluid's run-time checks of shard_index's attributes; the shard size."""
    n, shards, shard = attrs["index_num"], attrs["nshards"], attrs["shard_id"]
    if n is None or shards is None or shard is None:
        raise PeError("shard_index: index_num, nshards and shard_id must all be given")
    if n <= 0 or shards <= 0 or not 0 <= shard < shards:
        raise PeError(f"shard_index: index_num={n} and nshards={shards} must be > 0, shard_id={shard} in [0, nshards)")
    return (n + shards - 1) // shards


def shard_index(ins, attrs):
    x = ins["X"]
    size = shard_index_check(attrs)
    checked_index(x, attrs["index_num"], "shard_index", "X")
    out = np.where(x // size == attrs["shard_id"], x % size, attrs["ignore_value"])
    return {"Out": out.astype(x.dtype, copy=False)}
