"""CPU kernels of the sequence ops that move whole rows (ops/sequence_rows.py): the row map comes
from the LoD (kernels/common.py), then one gather forward and one scatter-add backward; sequence_erase's kept rows and LoD from
kernels/seq_dp.py."""

import numpy as np

from ..common import expand_rows, pad_index, reverse_index, seq_offsets, unpad_index
from ..seq_dp import erase
from ...shapes.sequence import mask_length


def _gather(x, idx, pad=None):
    """Rows of x at idx; rows with index -1 get ``pad`` (an array broadcast to one row)."""
    out = np.take(x, np.maximum(idx, 0), axis=0) if len(x) else np.zeros((len(idx),) + x.shape[1:], x.dtype)
    if pad is not None:
        pad = np.asarray(pad, dtype=x.dtype)
        out[idx < 0] = pad.reshape(x.shape[1:] if pad.size > 1 else ())
    return out


def _scatter(dout, idx, x):
    dx = np.zeros_like(x)
    valid = idx >= 0
    np.add.at(dx, idx[valid], dout.reshape((len(idx),) + x.shape[1:])[valid])
    return dx


def sequence_reverse(ins, attrs, ctx):
    x = ins["X"]
    return {"Y": _gather(x, reverse_index(seq_offsets(ctx, "X", x.shape[0])))}


def sequence_reverse_grad(ins, attrs, ctx):
    x = ins["X"]
    return {"X@GRAD": _scatter(ins["Y@GRAD"], reverse_index(seq_offsets(ctx, "X", x.shape[0])), x)}


def sequence_expand(ins, attrs, ctx):
    x = ins["X"]
    idx, offs = expand_rows(attrs, ctx, x.shape[0], ins["Y"].shape[0])
    ctx.set_lod_map({"Out": [offs]} if offs is not None else {})
    return {"Out": _gather(x, idx)}


def sequence_expand_grad(ins, attrs, ctx):
    x = ins["X"]
    return {"X@GRAD": _scatter(ins["Out@GRAD"], expand_rows(attrs, ctx, x.shape[0], ins["Y"].shape[0])[0], x)}


def sequence_pad(ins, attrs, ctx):
    x = ins["X"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    idx, length = pad_index(offs, attrs["padded_length"])
    out = _gather(x, idx, ins["PadValue"]).reshape((len(offs) - 1, length) + x.shape[1:])
    return {"Out": out, "Length": np.diff(offs).astype(np.int64)}


def sequence_pad_grad(ins, attrs, ctx):
    x = ins["X"]
    idx, _ = pad_index(seq_offsets(ctx, "X", x.shape[0]), attrs["padded_length"])
    return {"X@GRAD": _scatter(ins["Out@GRAD"], idx, x)}


def sequence_unpad(ins, attrs, ctx):
    x = ins["X"]
    idx, offs = unpad_index(ins["Length"], x.shape[1])
    rows = x.reshape((-1,) + (x.shape[2:] or (1,)))  # a 2-D X gives [N, 1], as Fluid's
    ctx.set_lod_map({"Out": [offs]})
    return {"Out": _gather(rows, idx)}


def sequence_unpad_grad(ins, attrs):
    x = ins["X"]
    idx, _ = unpad_index(ins["Length"], x.shape[1])
    rows = x.reshape((-1,) + (x.shape[2:] or (1,)))
    return {"X@GRAD": _scatter(ins["Out@GRAD"], idx, rows).reshape(x.shape)}


def sequence_mask(ins, attrs):
    x = np.asarray(ins["X"])
    maxlen = mask_length(ins, attrs, x)
    return {"Y": (np.arange(maxlen) < x[..., None]).astype(attrs["out_dtype"])}


def sequence_erase(ins, attrs, ctx):
    out, lod = erase(ins["X"], attrs, ctx)
    ctx.set_lod_map({"Out": lod})
    return {"Out": out}
