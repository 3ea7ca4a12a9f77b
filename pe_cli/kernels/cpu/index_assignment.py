"""index_put's kernels (numpy advanced indexing; np.add.at where duplicates must add up)."""

import numpy as np

from .elementwise import unbroadcast


def _where(ins):
    idx = ins["indices"]
    if len(idx) == 1 and idx[0].dtype == np.bool_:
        return tuple(np.nonzero(idx[0]))
    return tuple(np.asarray(i).astype(np.int64) for i in idx)


def index_put(ins, attrs):
    x, value = ins["x"], ins["value"]
    where = _where(ins)
    out = x.copy()
    picked = out[where].shape
    v = np.broadcast_to(value, picked)
    if attrs["accumulate"]:
        np.add.at(out, where, v)
    else:
        out[where] = v
    return {"out": out}


def index_put_grad(ins, attrs):
    value, d = ins["value"], ins["out@GRAD"]
    where = _where(ins)
    dx = d.copy()
    if not attrs["accumulate"]:
        dx[where] = 0
    picked = d[where]
    return {"x@GRAD": dx, "value@GRAD": unbroadcast(picked, value.shape).astype(value.dtype, copy=False)}
