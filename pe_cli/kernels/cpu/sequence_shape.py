"""CPU kernels of the ops that reshape the LoD (ops/sequence_shape.py): the row map and the new
offsets come from kernels/common.py; one gather forward, its scatter-add (or inverse gather) backward."""

import numpy as np

from ..common import seq_offsets
from ..seq_maps import concat_map, expand_as_index, lod_lists, lod_of, reset_lod, reshape_offsets, slice_index
from .sequence_rows import _gather, _scatter


def _expand_map(ins, attrs, ctx):
    y_lod = lod_of(ctx, "Y", ins["Y"].shape[0])
    return expand_as_index(ins["X"].shape[0], y_lod[-1])


def sequence_expand_as(ins, attrs, ctx):
    return {"Out": _gather(ins["X"], _expand_map(ins, attrs, ctx))}


def sequence_expand_as_grad(ins, attrs, ctx):
    return {"X@GRAD": _scatter(ins["Out@GRAD"], _expand_map(ins, attrs, ctx), ins["X"])}


def sequence_concat(ins, attrs, ctx):
    xs = ins["X"]
    idx, lod = concat_map(xs, ctx)
    ctx.set_lod_map({"Out": lod_lists(lod)})
    return {"Out": _gather(np.concatenate(xs, axis=0), idx)}


def sequence_concat_grad(ins, attrs, ctx):
    xs, dout = ins["X"], ins["Out@GRAD"]
    idx, _ = concat_map(xs, ctx)
    stacked = np.empty((len(idx),) + dout.shape[1:], dout.dtype)
    stacked[idx] = dout
    return {"X@GRAD": np.split(stacked, np.cumsum([x.shape[0] for x in xs])[:-1])}


def _slice_map(ins, attrs, ctx):
    lod = lod_of(ctx, "X", ins["X"].shape[0])
    idx, offs = slice_index(lod[-1], ins["Offset"], ins["Length"])
    return idx, lod[:-1] + [offs]


def sequence_slice(ins, attrs, ctx):
    idx, lod = _slice_map(ins, attrs, ctx)
    ctx.set_lod_map({"Out": lod_lists(lod)})
    return {"Out": _gather(ins["X"], idx)}


def sequence_slice_grad(ins, attrs, ctx):
    return {"X@GRAD": _scatter(ins["Out@GRAD"], _slice_map(ins, attrs, ctx)[0], ins["X"])}


def sequence_reshape(ins, attrs, ctx):
    x, new_dim = ins["X"], attrs["new_dim"]
    lod = lod_of(ctx, "X", x.shape[0])
    offs = reshape_offsets(lod[-1], x.shape[1], new_dim)
    ctx.set_lod_map({"Out": lod_lists(lod[:-1] + [offs])})
    return {"Out": np.ascontiguousarray(x).reshape(-1, new_dim)}


def sequence_reshape_grad(ins, attrs, ctx):
    x = ins["X"]
    seq_offsets(ctx, "X", x.shape[0])
    return {"X@GRAD": np.ascontiguousarray(ins["Out@GRAD"]).reshape(x.shape)}


def lod_reset(ins, attrs, ctx):
    x = ins["X"]
    y_values = (lambda: ins["Y"]) if "Y" in ins else None
    ctx.set_lod_map({"Out": reset_lod(attrs, ctx, x.shape[0], y_values)})
    return {"Out": x}
