"""CPU kernels of sequence_conv: the context rows gathered by a map from the LoD (kernels/common.py),
then one GEMM; backward the GEMMs' transposes and a scatter-add of the context's gradient."""
import numpy as np

from ..common import context_index, seq_offsets
from .sequence_rows import _gather, _scatter


def _context(x, attrs):
    idx = context_index(seq_offsets(attrs, "X", x.shape[0]), attrs["contextStart"], attrs["contextLength"])
    x2 = np.ascontiguousarray(x).reshape(x.shape[0], -1)
    return idx, x2, _gather(x2, idx, np.zeros(1, x.dtype)).reshape(x.shape[0], -1)


def sequence_conv(ins, attrs):
    _, _, col = _context(ins["X"], attrs)
    return {"Out": col @ ins["Filter"]}


def sequence_conv_grad(ins, attrs):
    x, w, dout = ins["X"], ins["Filter"], ins["Out@GRAD"]
    idx, x2, col = _context(x, attrs)
    dcol = (dout @ w.T).reshape(len(idx), -1)
    return {"X@GRAD": _scatter(dcol, idx, x2).reshape(x.shape), "Filter@GRAD": col.T @ dout}
