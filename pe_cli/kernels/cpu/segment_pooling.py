"""Kernels of pe_cli/ops/segment_pooling.py (numpy; the ids sorted, as Paddle requires): the out-kernels of
shapes/segment_pooling.py's meta rules (fresh). Integer X as Paddle 2.6.2's CPU kernel pools it: sums that wrap,
a mean the sum divided toward zero."""

import numpy as np

from ...base.errors import PeError
from ...shapes.segment_pooling import segment_pool_grad_meta, segment_pool_meta
from ..structured import adapter, fresh_kernel


def _ids(ins):
    ids = np.asarray(ins["SegmentIds"]).reshape(-1).astype(np.int64)
    if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
        raise PeError("segment_pool: SegmentIds must be sorted and >= 0")
    return ids


def _segment_pool(ins, attrs):
    x, ids = ins["X"], _ids(ins)
    n = int(ids[-1]) + 1 if ids.size else 0
    kind = attrs["pooltype"]
    counts = np.bincount(ids, minlength=n).astype(x.dtype)
    out = np.zeros((n,) + x.shape[1:], x.dtype)
    ints = x.dtype.kind in "iu"
    if kind in ("SUM", "MEAN"):
        np.add.at(out, ids, x)
        if kind == "MEAN":
            rows = np.maximum(counts, 1).reshape((-1,) + (1,) * (x.ndim - 1))
            if ints:  # (Paddle's integer division of the sum: toward zero)
                quotient = out // rows
                out = quotient + ((out - quotient * rows != 0) & (out < 0))
            else:
                out /= rows
    else:
        if ints:
            fill = np.iinfo(x.dtype).min if kind == "MAX" else np.iinfo(x.dtype).max
        else:
            fill = -np.inf if kind == "MAX" else np.inf
        out[:] = fill
        (np.maximum if kind == "MAX" else np.minimum).at(out, ids, x)
        out[counts == 0] = 0
    return {"Out": out, "SummedIds": counts.reshape(-1, 1)}


def _segment_pool_grad(ins, attrs):
    x, ids, out, d = ins["X"], _ids(ins), ins["Out"], ins["Out@GRAD"]
    kind = attrs["pooltype"]
    dx = d[ids].astype(x.dtype, copy=True)
    if kind == "MEAN":
        counts = np.bincount(ids, minlength=out.shape[0]).astype(x.dtype)[ids].reshape((-1,) + (1,) * (x.ndim - 1))
        if dx.dtype.kind in "iu":  # Paddle 2.6.2's int kernel: C++'s division, toward zero
            dx = (dx - np.fmod(dx, counts)) // counts
        else:
            dx /= counts
    elif kind in ("MAX", "MIN"):
        dx *= x == out[ids]
    return {"X@GRAD": dx}


SEGMENT_POOL = fresh_kernel(_segment_pool, "segment_pool_out")
SEGMENT_POOL_GRAD = fresh_kernel(_segment_pool_grad, "segment_pool_grad_out")
segment_pool = adapter(segment_pool_meta, SEGMENT_POOL, "segment_pool")
segment_pool_grad = adapter(segment_pool_grad_meta, SEGMENT_POOL_GRAD, "segment_pool_grad")
