"""The gather_scatter family on the CPU (ops/gather_scatter.py), numpy fancy indexing: index_sample, multiplex
and shard_index, each index checked against its range first (Fluid's CPU kernels refuse an index outside it);
index_select and scatter_nd_add are structured kernels (out-kernels in gathering.py)."""

import numpy as np

from ...base.errors import PeError
from ..value_checks import checked_index


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
