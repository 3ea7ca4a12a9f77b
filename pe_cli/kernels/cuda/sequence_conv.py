"""CUDA twin of kernels/cpu/sequence_conv.py: the same context map, the gather and scatter-add
kernels of cuda/sequence_rows.py and the GEMMs of _matmul."""
import numpy as np

from ..common import context_index, seq_offsets
from ._matmul import matmul
from .sequence_rows import _gather, _scatter


def _context(x, attrs):
    n = attrs["contextLength"]
    idx = context_index(seq_offsets(attrs, "X", x.shape[0]), attrs["contextStart"], n)
    rows, width = x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64))
    x2 = x.reshape((rows, width))
    return idx, x2, _gather(x2, idx, (len(idx), width)).reshape((rows, n * width))


def sequence_conv(ins, attrs):
    _, _, col = _context(ins["X"], attrs)
    return {"Out": matmul(col, ins["Filter"])}


def sequence_conv_grad(ins, attrs):
    x, w, dout = ins["X"], ins["Filter"], ins["Out@GRAD"]
    idx, x2, col = _context(x, attrs)
    dcol = matmul(dout, w, trans_b=True).reshape((len(idx), x2.shape[1]))
    return {"X@GRAD": _scatter(dcol, idx, x2.shape, x.dtype).reshape(tuple(x.shape)),
            "Filter@GRAD": matmul(col, dout, trans_a=True)}
