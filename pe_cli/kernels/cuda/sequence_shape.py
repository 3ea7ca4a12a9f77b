"""CUDA twins of kernels/cpu/sequence_shape.py: the same row maps and offsets (computed on the host
from the LoD), the gather and atomic scatter-add kernels of cuda/sequence_rows.py."""

import numpy as np

from ..common import seq_offsets
from ..seq_maps import concat_map, expand_as_index, lod_lists, lod_of, reset_lod, reshape_offsets, slice_index
from . import runtime as rt
from .sequence_rows import _gather, _scatter
from .manipulation import place_along, take_along


def _expand_map(ins, attrs, ctx):
    return expand_as_index(ins["X"].shape[0], lod_of(ctx, "Y", ins["Y"].shape[0])[-1])


def sequence_expand_as(ins, attrs, ctx):
    x = ins["X"]
    idx = _expand_map(ins, attrs, ctx)
    return {"Out": _gather(x, idx, (len(idx),) + tuple(x.shape[1:]))}


def sequence_expand_as_grad(ins, attrs, ctx):
    x = ins["X"]
    return {"X@GRAD": _scatter(ins["Out@GRAD"], _expand_map(ins, attrs, ctx), x.shape, x.dtype)}


def sequence_concat(ins, attrs, ctx):
    xs = ins["X"]
    idx, lod = concat_map(xs, ctx)
    shape = (len(idx),) + tuple(xs[0].shape[1:])
    stacked = place_along(xs, rt.empty(shape, xs[0].dtype), 0)
    ctx.set_lod_map({"Out": lod_lists(lod)})
    return {"Out": _gather(stacked, idx, shape)}


def sequence_concat_grad(ins, attrs, ctx):
    xs, dout = ins["X"], ins["Out@GRAD"]
    idx, _ = concat_map(xs, ctx)
    stacked = _gather(dout, np.argsort(idx, kind="stable"), tuple(dout.shape))
    return {"X@GRAD": take_along(stacked, [x.shape[0] for x in xs], 0)}


def _slice_map(ins, attrs, ctx):
    lod = lod_of(ctx, "X", ins["X"].shape[0])
    idx, offs = slice_index(lod[-1], rt.to_host(ins["Offset"]), rt.to_host(ins["Length"]))
    return idx, lod[:-1] + [offs]


def sequence_slice(ins, attrs, ctx):
    x = ins["X"]
    idx, lod = _slice_map(ins, attrs, ctx)
    ctx.set_lod_map({"Out": lod_lists(lod)})
    return {"Out": _gather(x, idx, (len(idx),) + tuple(x.shape[1:]))}


def sequence_slice_grad(ins, attrs, ctx):
    x = ins["X"]
    return {"X@GRAD": _scatter(ins["Out@GRAD"], _slice_map(ins, attrs, ctx)[0], x.shape, x.dtype)}


def sequence_reshape(ins, attrs, ctx):
    x, new_dim = ins["X"], attrs["new_dim"]
    lod = lod_of(ctx, "X", x.shape[0])
    offs = reshape_offsets(lod[-1], x.shape[1], new_dim)
    ctx.set_lod_map({"Out": lod_lists(lod[:-1] + [offs])})
    return {"Out": x.reshape((x.size // new_dim, new_dim))}


def sequence_reshape_grad(ins, attrs, ctx):
    x = ins["X"]
    seq_offsets(ctx, "X", x.shape[0])
    return {"X@GRAD": ins["Out@GRAD"].reshape(tuple(x.shape))}


def lod_reset(ins, attrs, ctx):
    x = ins["X"]
    y_values = (lambda: rt.to_host(ins["Y"])) if "Y" in ins else None
    ctx.set_lod_map({"Out": reset_lod(attrs, ctx, x.shape[0], y_values)})
    return {"Out": x}
