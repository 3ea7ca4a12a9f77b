"""The meta rules (shapes/structured.py) of data_norm and data_norm_grad (ops/normalization.py; out-kernels:
kernels/cpu/normalization.py). Variant "numpy", ``fresh``: numpy's expressions make the outputs, of the dtypes
numpy's promotion gives them (``resolve_dtypes``, no value read):

- data_norm: Y of X's shape and dtype; Means = BatchSum / BatchSize and Scales = sqrt(BatchSize / BatchSquareSum),
  of the statistics' broadcast shape ([C]) and the dtypes numpy's division and square root give.
- data_norm_grad: X@GRAD of X's shape and dtype; with enable_scale_and_shift, scale_w@GRAD (the column sums of
  Y@GRAD * (X - Means) * Scales) and bias@GRAD (Y@GRAD's), one per column; each statistic's summary update of its
  own shape and dtype."""

import numpy as np

from .structured import Meta

_STATS = ("BatchSize", "BatchSum", "BatchSquareSum")


def _dtypes(*values):
    return [np.dtype(v.dtype) for v in values]


def data_norm_meta(attrs, ins, facts):
    x, size, total, square = ins["X"], ins["BatchSize"], ins["BatchSum"], ins["BatchSquareSum"]
    means = np.true_divide.resolve_dtypes((*_dtypes(total, size), None))[2]
    ratio = np.true_divide.resolve_dtypes((*_dtypes(size, square), None))[2]
    scales = np.sqrt.resolve_dtypes((ratio, None))[1]
    outputs = {
        "Y": (tuple(x.shape), np.dtype(x.dtype)),
        "Means": (np.broadcast_shapes(total.shape, size.shape), means),
        "Scales": (np.broadcast_shapes(size.shape, square.shape), scales),
    }
    return Meta(outputs, "numpy", fresh=True)


def data_norm_grad_meta(attrs, ins, facts):
    x, dy = ins["X"], ins["Y@GRAD"]
    outputs = {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}
    if attrs["enable_scale_and_shift"]:
        columns = tuple(x.shape[1:])
        outputs["scale_w@GRAD"] = (columns, np.result_type(*_dtypes(dy, x, ins["Means"], ins["Scales"])))
        outputs["bias@GRAD"] = (columns, np.dtype(dy.dtype))
    for slot in _STATS:
        outputs[slot] = (tuple(ins[slot].shape), np.dtype(ins[slot].dtype))
    return Meta(outputs, "numpy", fresh=True)
