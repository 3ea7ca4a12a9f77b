"""CPU kernels of the sequence ops that move whole rows (ops/sequence_rows.py): the row map comes
from the LoD (kernels/common.py), then one gather forward and one scatter-add backward; sequence_erase's kept rows and LoD from
kernels/seq_dp.py. sequence_reverse, sequence_expand, sequence_pad and their gradients are out-kernels (their meta
rules, which decide the row map from the call's LoD: shapes/sequence_rows.py) writing into the buffers handed;
sequence_unpad, sequence_mask and sequence_erase hand over the arrays they make (their lengths are values')."""

import numpy as np

from ..common import unpad_index
from ..seq_dp import erase
from ..structured import fresh_outputs
from ...shapes.sequence import mask_length
from .launches import Launch, by_variant, flat, one
from .runtime.loops import lazy

_seq_loops = lazy("_seq_loops")


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


def _take(x, idx, out):
    """out = x's rows at idx (no -1 in it): an empty x gives zeros, as ``_gather``."""
    if len(x):
        np.take(x, idx, axis=0, out=out)
    else:
        out.fill(0)


def _scatter_into(dout, args, dx):
    """dx = zeros, dout's rows added at the map's rows (``_scatter``'s sums, into the buffer handed)."""
    idx, valid, every = args
    dx.fill(0)
    rows = dout.reshape((len(idx),) + dx.shape[1:])
    np.add.at(dx, idx if every else idx[valid], rows if every else rows[valid])


def sequence_reverse(ins, outs, attrs, meta):
    _take(ins["X"], meta.args[0], outs["Y"])


def sequence_reverse_grad(ins, outs, attrs, meta):
    _scatter_into(ins["Y@GRAD"], meta.args, outs["X@GRAD"])


def sequence_expand(ins, outs, attrs, meta, ctx):
    idx, lods = meta.args
    ctx.set_lod_map({slot: list(lod) for slot, lod in lods.items()})
    _take(ins["X"], idx, outs["Out"])


sequence_expand.takes_context = True  # (Out's LoD, the rule's, set on the call's context)


def sequence_expand_grad(ins, outs, attrs, meta):
    _scatter_into(ins["Out@GRAD"], meta.args, outs["X@GRAD"])


def sequence_pad(ins, outs, attrs, meta):
    idx, past, lengths = meta.args
    x = ins["X"]
    out = outs["Out"].reshape((len(idx),) + x.shape[1:])
    _take(x, idx, out)
    pad = np.asarray(ins["PadValue"], dtype=x.dtype)
    out[past] = pad.reshape(x.shape[1:] if pad.size > 1 else ())
    outs["Length"][...] = lengths


def sequence_pad_grad(ins, outs, attrs, meta):
    _scatter_into(ins["Out@GRAD"], meta.args, outs["X@GRAD"])


def sequence_unpad(ins, outs, attrs, meta, ctx):
    x = ins["X"]
    idx, offs = unpad_index(ins["Length"], x.shape[1])
    rows = x.reshape((-1,) + (x.shape[2:] or (1,)))  # a 2-D X gives [N, 1], as Fluid's
    ctx.set_lod_map({"Out": [offs]})
    fresh_outputs({"Out": _gather(rows, idx)}, ins, outs, meta)


sequence_unpad.takes_context = True


def sequence_unpad_grad(ins, outs, attrs, meta):
    padded, rows = meta.args
    idx, _ = unpad_index(ins["Length"], padded)  # (Length's values, checked as the forward checks them)
    _scatter_into(ins["Out@GRAD"], (idx, None, True), outs["X@GRAD"].reshape(rows))


def _mask(ins, outs, attrs, meta):
    x = np.asarray(ins["X"])
    maxlen = mask_length(ins, attrs, x)
    fresh_outputs({"Y": (np.arange(maxlen) < x[..., None]).astype(attrs["out_dtype"])}, ins, outs, meta)


def _mask_below(ins, outs, attrs, meta):
    """Y[..., j] = j < X[...] for j below maxlen, as 1 or 0 of Y's dtype (numpy's comparison, then its cast)."""
    x, y = np.asarray(ins["X"]), outs["Y"]
    np.copyto(y, np.arange(y.shape[-1]) < x[..., None], casting="unsafe")


def _mask_launches(op, table, meta):
    """A planned step's launch of "below": _seq_loops.mask_below over X's flat lengths, where X holds integers or
    floats of 32 or 64 bits and Y those or bool."""
    x, y = one(op, "X"), one(op, "Y", "outputs")
    if meta.variant != "below" or x is None or y is None or x not in table or y not in table:
        return None
    if table[x][1] not in MASKED or table[y][1] not in (*MASKED, np.dtype(bool)):
        return None
    args = [flat(table, x), ("const", table[y][0][-1]), flat(table, y)]
    return [Launch(_seq_loops().mask_below, args, writes=[y])]


MASKED = tuple(np.dtype(t) for t in ("i4", "i8", "f4", "f8"))
sequence_mask = by_variant("sequence_mask_out", _mask_launches, mask=_mask, below=_mask_below)


def sequence_erase(ins, outs, attrs, meta, ctx):
    out, lod = erase(ins["X"], attrs, ctx)
    ctx.set_lod_map({"Out": lod})
    fresh_outputs({"Out": out}, ins, outs, meta)


sequence_erase.takes_context = True
