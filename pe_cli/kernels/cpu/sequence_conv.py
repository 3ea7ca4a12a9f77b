"""CPU kernels of sequence_conv: the context rows gathered by a map from the LoD (kernels/common.py),
then one GEMM; backward the GEMMs' transposes and a scatter-add of the context's gradient."""

import numpy as np

from ..common import context_index, seq_offsets
from .sequence_rows import _gather, _scatter


def _context(x, attrs, ctx, padding=None):
    """(context map, the rows it reads: X's, then PaddingData's when trainable, the context [rows, n * D])."""
    trainable = attrs["paddingTrainable"] and padding is not None
    idx = context_index(seq_offsets(ctx, "X", x.shape[0]), attrs["contextStart"], attrs["contextLength"], trainable)
    src = np.ascontiguousarray(x).reshape(x.shape[0], -1)
    if trainable:
        src = np.concatenate([src, np.asarray(padding, x.dtype).reshape(len(padding), -1)])
    return idx, src, _gather(src, idx, np.zeros(1, x.dtype)).reshape(x.shape[0], -1)


def sequence_conv(ins, attrs, ctx):
    _, _, col = _context(ins["X"], attrs, ctx, ins.get("PaddingData"))
    return {"Out": col @ ins["Filter"]}


def sequence_conv_grad(ins, attrs, ctx):
    x, w, dout, padding = ins["X"], ins["Filter"], ins["Out@GRAD"], ins.get("PaddingData")
    idx, src, col = _context(x, attrs, ctx, padding)
    dcol = (dout @ w.T).reshape(len(idx), -1)
    dsrc = _scatter(dcol, idx, src)
    outs = {"X@GRAD": dsrc[: x.shape[0]].reshape(x.shape), "Filter@GRAD": col.T @ dout}
    if padding is not None:  # zeros unless trainable (then its rows' share of the context's gradient)
        outs["PaddingData@GRAD"] = (
            dsrc[x.shape[0] :].reshape(padding.shape) if len(src) > x.shape[0] else np.zeros_like(padding)
        )
    return outs
