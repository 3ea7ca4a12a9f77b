"""The gather_scatter family's CPU out-kernels (ops/gather_scatter.py; structured kernels, their meta rules in
shapes/indexing_axis.py), numpy fancy indexing: index_sample, multiplex and shard_index, each index checked against
its range first (Fluid's CPU kernels refuse an index outside it); index_select's and scatter_nd_add's out-kernels
are in gathering.py."""

import numpy as np

from ...shapes import indexing_axis as rules
from ..structured import adapter, fresh_output
from ..value_checks import checked_index
from .launches import by_variant


def _index_sample(ins, outs, attrs, meta):
    """A row of Index for each row of X: X's values at the flat places, taken into Out's buffer."""
    x = ins["X"]
    n = x.shape[1]
    index = checked_index(ins["Index"], n, "index_sample")
    places = index + (np.arange(x.shape[0], dtype=np.int64) * n)[:, None]
    np.take(x.reshape(-1), places, out=outs["Out"], mode="clip")


def _index_sample_broadcast(ins, outs, attrs, meta):
    x = ins["X"]
    index = checked_index(ins["Index"], x.shape[1], "index_sample")
    outs["Out"] = fresh_output(np.take_along_axis(x, index, axis=1), meta.outputs["Out"], ins.values())


def _index_sample_grad(ins, outs, attrs, meta):
    x, dx = ins["X"], outs["X@GRAD"]
    index = checked_index(ins["Index"], x.shape[1], "index_sample_grad")
    dx.fill(0)
    np.add.at(dx, (np.arange(x.shape[0])[:, None], index), ins["Out@GRAD"])


INDEX_SAMPLE = by_variant("index_sample_out", None, take=_index_sample, broadcast=_index_sample_broadcast)
INDEX_SAMPLE_GRAD = by_variant("index_sample_grad_out", None, add=_index_sample_grad)


def _multiplex(ins, outs, attrs, meta):
    xs = ins["X"]
    ids = checked_index(ins["Ids"].reshape(-1), len(xs), "multiplex", "Ids")
    outs["Out"] = fresh_output(np.stack(xs)[ids, np.arange(len(ids))], meta.outputs["Out"], ins.values())


def _multiplex_grad(ins, outs, attrs, meta):
    dout = ins["Out@GRAD"]
    ids = ins["Ids"].reshape(-1).astype(np.int64, copy=False)
    for k, g in enumerate(outs["X@GRAD"]):
        g.fill(0)
        rows = ids == k
        g[rows] = dout[rows]


MULTIPLEX = by_variant("multiplex_out", None, pick=_multiplex)
MULTIPLEX_GRAD = by_variant("multiplex_grad_out", None, rows=_multiplex_grad)


def _shard_index(ins, outs, attrs, meta):
    x, (size,) = ins["X"], meta.args
    checked_index(x, attrs["index_num"], "shard_index", "X")
    out = np.where(x // size == attrs["shard_id"], x % size, attrs["ignore_value"])
    outs["Out"] = fresh_output(out.astype(x.dtype, copy=False), meta.outputs["Out"], ins.values())


SHARD_INDEX = by_variant("shard_index_out", None, shard=_shard_index)
shard_index = adapter(rules.shard_index_meta, SHARD_INDEX, "shard_index")  # (CUDA's host kernel: its HOST_OPS)
