"""CPU out-kernels of the sequence ops (ops/sequence.py; their meta rules: shapes/sequence.py): numba loops that
release the GIL, writing into the buffers they are handed."""

import numpy as np

from .runtime.loops import lazy

_loops = lazy("_seq_loops")


def _rows2d(x):
    return np.ascontiguousarray(x).reshape(x.shape[0], -1)


def sequence_pool(ins, outs, attrs, meta):
    offs, code, pad = meta.args
    x2 = _rows2d(ins["X"])
    out, idx = outs["Out"], outs["MaxIndex"]
    _loops().pool(x2, offs, code, pad, out.reshape(offs.size - 1, x2.shape[1]), idx.reshape(offs.size - 1, x2.shape[1]))


def sequence_pool_grad(ins, outs, attrs, meta):
    offs, code = meta.args
    x, dx = ins["X"], outs["X@GRAD"]
    dx2 = dx.reshape(x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64)))
    dx2.fill(0)  # (the loop adds each sequence's share to its rows)
    idx = ins.get("MaxIndex")  # (read by MAX alone: its rows, where the grad op is given them)
    idx = _rows2d(idx) if idx is not None else np.zeros((offs.size - 1, dx2.shape[1]), np.int32)
    _loops().pool_grad(_rows2d(ins["Out@GRAD"]), offs, code, idx, dx2)


def sequence_softmax(ins, outs, attrs, meta):
    _loops().softmax(np.ascontiguousarray(ins["X"]).reshape(-1), meta.args[0], outs["Out"].reshape(-1))


def sequence_softmax_grad(ins, outs, attrs, meta):
    out, dout = np.ascontiguousarray(ins["Out"]).reshape(-1), np.ascontiguousarray(ins["Out@GRAD"]).reshape(-1)
    _loops().softmax_grad(out, dout, meta.args[0], outs["X@GRAD"].reshape(-1))
