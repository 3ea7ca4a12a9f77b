"""Meta rules of the statistics family (ops/statistics.py; structured kernels, shapes/structured.py; their CPU
out-kernels: kernels/cpu/statistics.py): kthvalue, mode and nanmedian (a value per line along the reduced axes
and where it was) and their gradients, bincount (its length X's values). Their numpy forms make their arrays:
fresh variants."""

import numpy as np

from .reduction import scalar_shape
from .structured import Meta

_INT64 = np.dtype(np.int64)


def reduced_shape(shape, axes, keepdim, zero_dim):
    """``shape`` without ``axes`` (1s where ``keepdim``); none left: 0-D where the op says so (``zero_dim``), else
    [1]."""
    out = (
        [1 if i in axes else n for i, n in enumerate(shape)]
        if keepdim
        else [n for i, n in enumerate(shape) if i not in axes]
    )
    return tuple(out) if out else scalar_shape(zero_dim)


def by_index_meta(attrs, ins, facts):
    """kthvalue's and mode's Out (X's dtype) and Indices (int64): X without ``axis`` (or with a 1 there,
    ``keepdim``); "line" (a sort per line, fresh)."""
    x = ins["X"]
    shape = reduced_shape(tuple(x.shape), (attrs["axis"] % max(len(x.shape), 1),), attrs["keepdim"], facts.zero_dim)
    return Meta({"Out": (shape, x.dtype), "Indices": (shape, _INT64)}, "line", fresh=True)


def median_axes(ndim, attrs):
    """The axes nanmedian reduces: ``axis`` (each once, ascending), or all."""
    return sorted({d % max(ndim, 1) for d in attrs["axis"]}) if attrs["axis"] else list(range(ndim))


def nanmedian_meta(attrs, ins, facts):
    """nanmedian's Out (X's dtype) and MedianIndex (int64, the two middle places per line: [..., 2]); "line"
    (fresh)."""
    x = ins["X"]
    shape = reduced_shape(tuple(x.shape), set(median_axes(len(x.shape), attrs)), attrs["keepdim"], facts.zero_dim)
    return Meta({"Out": (shape, x.dtype), "MedianIndex": (shape + (2,), _INT64)}, "line", fresh=True)


def scattered_back_meta(attrs, ins, facts):
    """kthvalue_grad's, mode_grad's and nanmedian_grad's X@GRAD (X's shape, Out@GRAD's dtype): Out@GRAD added at the
    places the forward recorded, zeros elsewhere; "add" (fresh: X's layout made back from lines)."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), ins["Out@GRAD"].dtype)}, "add", fresh=True)


def bincount_meta(attrs, ins, facts):
    """bincount's Out: 1-D, its length X's largest value + 1 (or minlength: -1), int64 (float32 or float64 with
    Weights); "count" (numpy's bincount, fresh)."""
    w = ins.get("Weights")
    dtype = np.dtype(np.int64 if w is None else (np.float32 if w.dtype == np.float32 else np.float64))
    return Meta({"Out": ((-1,), dtype)}, "count", fresh=True)
