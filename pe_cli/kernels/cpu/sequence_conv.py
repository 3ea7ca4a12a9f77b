"""CPU out-kernels of sequence_conv (meta rules: shapes/convolution_irregular.py, which make the context map from the
call's LoD): the context rows gathered by the map, then one GEMM into Out; backward the GEMMs' transposes and a
scatter-add of the context's gradient into X@GRAD (or, with PaddingData's rows trainable, into a scratch of X's and
PaddingData's rows, copied into both gradients)."""

import numpy as np

from .sequence_rows import _gather, _scatter_into


def _columns(x, padding, idx, trainable):
    """The context [rows, n * D]: X's rows (then PaddingData's when trainable) at the map's entries."""
    src = np.ascontiguousarray(x).reshape(x.shape[0], -1)
    if trainable:
        src = np.concatenate([src, np.asarray(padding, x.dtype).reshape(len(padding), -1)])
    return _gather(src, idx, np.zeros(1, x.dtype)).reshape(x.shape[0], -1)


def sequence_conv(ins, outs, attrs, meta):
    idx, trainable = meta.args
    col = _columns(ins["X"], ins.get("PaddingData"), idx, trainable)
    np.matmul(col, ins["Filter"], out=outs["Out"])


def sequence_conv_grad(ins, outs, attrs, meta):
    x, w, dout, padding = ins["X"], ins["Filter"], ins["Out@GRAD"], ins.get("PaddingData")
    idx, trainable, valid, every = meta.args
    rows, width = x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64))
    if "Filter@GRAD" in outs:
        np.matmul(_columns(x, padding, idx, trainable).T, dout, out=outs["Filter@GRAD"])
    dx, dpad = outs.get("X@GRAD"), outs.get("PaddingData@GRAD")
    if meta.variant == "padded":  # (the context's gradient over X's rows and PaddingData's)
        dsrc = outs["@rows"]
        _scatter_into((dout @ w.T).reshape(len(idx), -1), (idx, valid, every), dsrc)
        if dx is not None:
            np.copyto(dx.reshape(rows, width), dsrc[:rows])
        if dpad is not None:
            np.copyto(dpad.reshape(len(padding), width), dsrc[rows:])
        return
    if dx is not None:
        _scatter_into((dout @ w.T).reshape(len(idx), -1), (idx, valid, every), dx.reshape(rows, width))
    if dpad is not None:  # (zeros: no step reads PaddingData)
        dpad.fill(0)
