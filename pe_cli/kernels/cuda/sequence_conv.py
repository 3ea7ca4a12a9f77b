"""CUDA twin of kernels/cpu/sequence_conv.py: the same context map, the gather and scatter-add
kernels of cuda/sequence_rows.py and the GEMMs of _matmul."""

import numpy as np

from ..common import context_index, seq_offsets
from ._matmul import matmul
from .manipulation import concat
from ._launch import zeros
from .sequence_rows import _gather, _scatter


def _context(x, attrs, ctx, padding=None):
    """(context map, the rows it reads: X's, then PaddingData's when trainable, the context [rows, n * D])."""
    n = attrs["contextLength"]
    trainable = attrs["paddingTrainable"] and padding is not None
    idx = context_index(seq_offsets(ctx, "X", x.shape[0]), attrs["contextStart"], n, trainable)
    rows, width = x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64))
    src = x.reshape((rows, width))
    if trainable:
        src = concat({"X": [src, padding.reshape((padding.shape[0], width))]}, {"axis": 0})["Out"]
    return idx, src, _gather(src, idx, (len(idx), width)).reshape((rows, n * width))


def sequence_conv(ins, attrs, ctx):
    _, _, col = _context(ins["X"], attrs, ctx, ins.get("PaddingData"))
    return {"Out": matmul(col, ins["Filter"])}


def sequence_conv_grad(ins, attrs, ctx):
    x, w, dout, padding = ins["X"], ins["Filter"], ins["Out@GRAD"], ins.get("PaddingData")
    idx, src, col = _context(x, attrs, ctx, padding)
    dcol = matmul(dout, w, trans_b=True).reshape((len(idx), src.shape[1]))
    dsrc = _scatter(dcol, idx, src.shape, x.dtype)
    rows = x.shape[0]
    outs = {"X@GRAD": dsrc[:rows].reshape(tuple(x.shape)), "Filter@GRAD": matmul(col, dout, trans_a=True)}
    if padding is not None:  # zeros unless trainable (then its rows' share of the context's gradient)
        outs["PaddingData@GRAD"] = (
            dsrc[rows:].reshape(tuple(padding.shape))
            if src.shape[0] > rows
            else zeros(tuple(padding.shape), padding.dtype)
        )
    return outs
