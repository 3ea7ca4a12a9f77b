"""CPU kernels of the ops that reshape the LoD (ops/sequence_shape.py): the row map and the new
offsets come from kernels/common.py; one gather forward, its scatter-add (or inverse gather) backward. All are out-kernels (their meta rules:
shapes/sequence_shape.py) into the buffers or views the Meta makes; sequence_slice's rows, which its Offset and
Length values give, are handed over (a ``fresh`` variant)."""

import numpy as np

from ..seq_maps import lod_lists, lod_of, reset_lod, slice_index
from ..structured import fresh_outputs
from .sequence_rows import _gather, _scatter_into, _take


def sequence_expand_as(ins, outs, attrs, meta):
    _take(ins["X"], meta.args[0], outs["Out"])


def sequence_expand_as_grad(ins, outs, attrs, meta):
    _scatter_into(ins["Out@GRAD"], meta.args, outs["X@GRAD"])


def sequence_concat(ins, outs, attrs, meta, ctx):
    idx, lods = meta.args
    ctx.set_lod_map({slot: [list(level) for level in lod] for slot, lod in lods.items()})
    _take(np.concatenate(ins["X"], axis=0), idx, outs["Out"])


sequence_concat.takes_context = True  # (Out's LoD, the rule's, set on the call's context)


def sequence_concat_grad(ins, outs, attrs, meta):
    inverse, bounds = meta.args
    dout = ins["Out@GRAD"]
    for dx, a, b in zip(outs["X@GRAD"], bounds[:-1], bounds[1:]):
        np.take(dout, inverse[a:b], axis=0, out=dx)


def _slice_map(ins, ctx):
    lod = lod_of(ctx, "X", ins["X"].shape[0])
    idx, offs = slice_index(lod[-1], ins["Offset"], ins["Length"])
    return idx, lod[:-1] + [offs]


def sequence_slice(ins, outs, attrs, meta, ctx):
    """Out: X's rows at the map of Offset's and Length's values (``fresh``: its rows are theirs); its LoD too."""
    idx, lod = _slice_map(ins, ctx)
    ctx.set_lod_map({"Out": lod_lists(lod)})
    fresh_outputs({"Out": _gather(ins["X"], idx)}, ins, outs, meta)


sequence_slice.takes_context = True


def sequence_slice_grad(ins, outs, attrs, meta, ctx):
    idx = _slice_map(ins, ctx)[0]
    _scatter_into(ins["Out@GRAD"], (idx, None, True), outs["X@GRAD"])


sequence_slice_grad.takes_context = True


def sequence_reshape(ins, outs, attrs, meta, ctx):
    """Out: a view of X (the Meta's); its LoD, the offsets the rule scaled."""
    ctx.set_lod_map({slot: [list(level) for level in lod] for slot, lod in meta.args[0].items()})


sequence_reshape.takes_context = True


def sequence_reshape_grad(ins, outs, attrs, meta):
    """X@GRAD: Out@GRAD in X's shape (the Meta's view)."""


def lod_reset(ins, outs, attrs, meta, ctx):
    """Out: X (the Meta's alias); its LoD, Y's or the new level (Y's values or target_lod), checked."""
    y_values = (lambda: ins["Y"]) if "Y" in ins else None
    ctx.set_lod_map({"Out": reset_lod(attrs, ctx, ins["X"].shape[0], y_values)})


lod_reset.takes_context = True
