"""CPU kernels of the ops that reshape the LoD (ops/sequence_shape.py): the row map and the new
offsets come from kernels/common.py; one gather forward, its scatter-add (or inverse gather) backward. sequence_expand_as, sequence_reshape and their
gradients are out-kernels (their meta rules: shapes/sequence_shape.py) into the buffers or views the Meta makes."""

import numpy as np

from ..seq_maps import concat_map, lod_lists, lod_of, reset_lod, slice_index
from .sequence_rows import _gather, _scatter, _scatter_into, _take


def sequence_expand_as(ins, outs, attrs, meta):
    _take(ins["X"], meta.args[0], outs["Out"])


def sequence_expand_as_grad(ins, outs, attrs, meta):
    _scatter_into(ins["Out@GRAD"], meta.args, outs["X@GRAD"])


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


def sequence_reshape(ins, outs, attrs, meta, ctx):
    """Out: a view of X (the Meta's); its LoD, the offsets the rule scaled."""
    ctx.set_lod_map({slot: [list(level) for level in lod] for slot, lod in meta.args[0].items()})


sequence_reshape.takes_context = True


def sequence_reshape_grad(ins, outs, attrs, meta):
    """X@GRAD: Out@GRAD in X's shape (the Meta's view)."""


def lod_reset(ins, attrs, ctx):
    x = ins["X"]
    y_values = (lambda: ins["Y"]) if "Y" in ins else None
    ctx.set_lod_map({"Out": reset_lod(attrs, ctx, x.shape[0], y_values)})
    return {"Out": x}
