"""Meta rules of the bucketing family (ops/bucketing.py; structured kernels, shapes/structured.py; their CPU
out-kernels: kernels/cpu/bucketing.py): searchsorted, histogram, repeat_interleave and its gradient. Their numpy
forms make their arrays: fresh variants (repeat_interleave's length, given by RepeatsTensor, its values: -1)."""

import numpy as np

from .structured import Meta


def searchsorted_meta(attrs, ins, facts):
    """searchsorted's Out: Values' shape, int32 (``out_int32``) or int64; "search" (numpy's searchsorted a row)."""
    dtype = np.dtype(np.int32 if attrs["out_int32"] else np.int64)
    return Meta({"Out": (tuple(ins["Values"].shape), dtype)}, "search", fresh=True)


def histogram_meta(attrs, ins, facts):
    """histogram's Out: int64 [bins]; "count" (numpy's bincount of the bins, fresh)."""
    return Meta({"Out": ((int(attrs["bins"]),), np.dtype(np.int64))}, "count", fresh=True)


def repeat_interleave_meta(attrs, ins, facts):
    """repeat_interleave's Out: X (a 0-D X as [1]) with each slice along ``dim`` repeated (Repeats times, or
    RepeatsTensor's values: that dim's length -1); "repeat" (numpy's repeat, fresh)."""
    x = ins["X"]
    shape = tuple(x.shape) or (1,)
    d = attrs["dim"] % len(shape)
    n = -1 if ins.get("RepeatsTensor") is not None else shape[d] * int(attrs["Repeats"])
    return Meta({"Out": (shape[:d] + (n,) + shape[d + 1 :], x.dtype)}, "repeat", fresh=True)


def repeat_interleave_grad_meta(attrs, ins, facts):
    """repeat_interleave_grad's X@GRAD (X's shape and dtype): Out@GRAD summed over each slice's repeats; "sum"
    (numpy's reduceat, fresh)."""
    x = ins["X"]
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype)}, "sum", fresh=True)
