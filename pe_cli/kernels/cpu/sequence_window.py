"""CPU kernels of ops/sequence_window.py (sequence_enumerate, sequence_scatter, row_conv): numba
loops over each sequence's steps that release the GIL."""

import numpy as np

from ..common import seq_offsets
from ..seq_maps import row_conv_offsets, scatter_checks
from .runtime.loops import lazy

_loops = lazy("_seq_window_loops")


def sequence_enumerate(ins, attrs, ctx):
    x = ins["X"]
    offs = seq_offsets(ctx, "X", x.shape[0])
    out = np.empty((x.shape[0], attrs["win_size"]), x.dtype)
    _loops().enumerate_ids(
        np.ascontiguousarray(x).reshape(-1), offs, attrs["win_size"], x.dtype.type(attrs["pad_value"]), out
    )
    return {"Out": out}


def _scatter_args(ins, attrs, ctx, x_shape):
    ids = np.ascontiguousarray(ins["Ids"]).reshape(-1).astype(np.int64)
    offs = seq_offsets(ctx, "Ids", ids.size)
    scatter_checks(x_shape, ids, offs, np.size(ins["Updates"]))
    return ids, offs


def sequence_scatter(ins, attrs, ctx):
    x = ins["X"]
    ids, offs = _scatter_args(ins, attrs, ctx, x.shape)
    out = np.array(x, copy=True).reshape(x.shape[0], -1)
    _loops().scatter_add(out, ids, np.ascontiguousarray(ins["Updates"], x.dtype).reshape(-1), offs)
    return {"Out": out.reshape(x.shape)}


def sequence_scatter_grad(ins, attrs, ctx):
    dout, upd = ins["Out@GRAD"], ins["Updates"]
    ids, offs = _scatter_args(ins, attrs, ctx, dout.shape)
    dupd = np.empty(upd.size, dout.dtype)
    _loops().scatter_take(np.ascontiguousarray(dout).reshape(dout.shape[0], -1), ids, offs, dupd)
    return {"X@GRAD": np.array(dout, copy=True), "Updates@GRAD": dupd.reshape(upd.shape)}


def row_conv(ins, attrs, ctx):
    x, w = ins["X"], np.ascontiguousarray(ins["Filter"])
    offs = row_conv_offsets(ctx, x.shape)
    x2 = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    out = np.empty_like(x2)
    _loops().row_conv(x2, w, offs, out)
    return {"Out": out.reshape(x.shape)}


def row_conv_grad(ins, attrs, ctx):
    x, w, dout = ins["X"], np.ascontiguousarray(ins["Filter"]), ins["Out@GRAD"]
    offs = row_conv_offsets(ctx, x.shape)
    x2 = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    dx, dw = np.zeros_like(x2), np.zeros_like(w)
    _loops().row_conv_grad(x2, w, np.ascontiguousarray(dout, x2.dtype).reshape(x2.shape), offs, dx, dw)
    return {"X@GRAD": dx.reshape(x.shape), "Filter@GRAD": dw}
