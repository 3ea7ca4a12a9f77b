"""CPU kernels of ops/sequence_window.py (sequence_enumerate, sequence_scatter, row_conv): numba
loops over each sequence's steps that release the GIL, out-kernels (their meta rules, which decide the offsets from
the call's LoD: shapes/sequence_window.py) writing into the buffers handed."""

import numpy as np

from ..seq_maps import scatter_checks
from .runtime.loops import lazy

_loops = lazy("_seq_window_loops")


def sequence_enumerate(ins, outs, attrs, meta):
    x = ins["X"]
    _loops().enumerate_ids(
        np.ascontiguousarray(x).reshape(-1),
        meta.args[0],
        attrs["win_size"],
        x.dtype.type(attrs["pad_value"]),
        outs["Out"],
    )


def _ids(ins, offs, x_shape):
    ids = np.ascontiguousarray(ins["Ids"]).reshape(-1).astype(np.int64)
    scatter_checks(x_shape, ids, offs, np.size(ins["Updates"]))
    return ids


def sequence_scatter(ins, outs, attrs, meta):
    x, offs = ins["X"], meta.args[0]
    ids = _ids(ins, offs, x.shape)
    out = outs["Out"]
    out[...] = x
    _loops().scatter_add(
        out.reshape(x.shape[0], -1), ids, np.ascontiguousarray(ins["Updates"], x.dtype).reshape(-1), offs
    )


def sequence_scatter_grad(ins, outs, attrs, meta):
    dout, offs = ins["Out@GRAD"], meta.args[0]
    ids = _ids(ins, offs, dout.shape)
    outs["X@GRAD"][...] = dout
    dupd = outs["Updates@GRAD"].reshape(-1)
    _loops().scatter_take(np.ascontiguousarray(dout).reshape(dout.shape[0], -1), ids, offs, dupd)


def row_conv(ins, outs, attrs, meta):
    x, w = ins["X"], np.ascontiguousarray(ins["Filter"])
    x2 = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    _loops().row_conv(x2, w, meta.args[0], outs["Out"].reshape(x2.shape))


def row_conv_grad(ins, outs, attrs, meta):
    x, w, dout = ins["X"], np.ascontiguousarray(ins["Filter"]), ins["Out@GRAD"]
    x2 = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    dx, dw = outs["X@GRAD"].reshape(x2.shape), outs["Filter@GRAD"]
    dx.fill(0)
    dw.fill(0)
    _loops().row_conv_grad(x2, w, np.ascontiguousarray(dout, x2.dtype).reshape(x2.shape), meta.args[0], dx, dw)
