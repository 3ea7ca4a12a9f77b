"""index_put's out-kernels (structured kernels; their meta rules: shapes/indexing_axis.py): numpy advanced
indexing, np.add.at where duplicates must add up."""

import numpy as np

from ...shapes import indexing_axis as rules
from ..structured import adapter, fresh_output
from .elementwise import unbroadcast
from .launches import by_variant


def _where(ins):
    idx = ins["indices"]
    if len(idx) == 1 and idx[0].dtype == np.bool_:
        return tuple(np.nonzero(idx[0]))
    return tuple(np.asarray(i).astype(np.int64) for i in idx)


def _index_put(ins, outs, attrs, meta):
    out = outs["out"]
    where = _where(ins)
    np.copyto(out, ins["x"])
    v = np.broadcast_to(ins["value"], out[where].shape)
    if attrs["accumulate"]:
        np.add.at(out, where, v)
    else:
        out[where] = v


def _index_put_grad(ins, outs, attrs, meta):
    value, d = ins["value"], ins["out@GRAD"]
    where = _where(ins)
    dx = d.copy()
    if not attrs["accumulate"]:
        dx[where] = 0
    picked = unbroadcast(d[where], value.shape).astype(value.dtype, copy=False)
    outs["x@GRAD"] = fresh_output(dx, meta.outputs["x@GRAD"], ins.values())
    outs["value@GRAD"] = fresh_output(picked, meta.outputs["value@GRAD"], ins.values())


INDEX_PUT = by_variant("index_put_out", None, put=_index_put)
INDEX_PUT_GRAD = by_variant("index_put_grad_out", None, picked=_index_put_grad)

# (the kernels by name CUDA runs on the host: kernels/cuda/index_assignment.py's HOST_OPS)
index_put = adapter(rules.index_put_meta, INDEX_PUT, "index_put")
index_put_grad = adapter(rules.index_put_grad_meta, INDEX_PUT_GRAD, "index_put_grad")
