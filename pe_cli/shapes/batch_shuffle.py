"""The meta rules of shuffle_batch and its gradient (ops/batch_shuffle.py): the rows are every dimension of X but
the last (a 0-D X: one row of one value); Out of X's shape and dtype, ShuffleIdx int64 [rows], SeedOut int64 [1];
the gradient's X@GRAD of Out@GRAD's shape and dtype. ``Meta.args``: (rows, width), the [rows, width] view the
out-kernels (kernels/cpu/batch_shuffle.py, variant "rows") gather and scatter through."""

import math

import numpy as np

from .structured import Meta

_INT64 = np.dtype(np.int64)


def shuffle_batch_meta(attrs, ins, facts):
    """shuffle_batch: Out, ShuffleIdx, SeedOut (above); args (rows, width)."""
    x = ins["X"]
    shape = tuple(x.shape)
    width = shape[-1] if shape else 1
    rows = math.prod(shape) // width if width else math.prod(shape[:-1])
    outputs = {"Out": (shape, np.dtype(x.dtype)), "ShuffleIdx": ((rows,), _INT64), "SeedOut": ((1,), _INT64)}
    return Meta(outputs, "rows", args=(rows, width))


def shuffle_batch_grad_meta(attrs, ins, facts):
    """shuffle_batch_grad: X@GRAD of Out@GRAD's shape and dtype; args (ShuffleIdx's length, Out@GRAD's last dim)."""
    dout, idx = ins["Out@GRAD"], ins["ShuffleIdx"]
    shape = tuple(dout.shape)
    return Meta({"X@GRAD": (shape, np.dtype(dout.dtype))}, "rows", args=(math.prod(idx.shape), shape[-1]))
