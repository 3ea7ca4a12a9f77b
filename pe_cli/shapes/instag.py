"""Meta rules of filter_by_instag and its gradient (ops/instag.py): ``fresh`` variants, the rows kept depending on
the tags' values (kernels/instag_rows.py makes the arrays the out-kernels hand over: kernels/cpu/instag.py)."""

import numpy as np

from .structured import Meta


def filter_by_instag_meta(attrs, ins, facts):
    """filter_by_instag: Out, Ins' rows kept (Ins' dtype and width), LossWeight (float32 [.., 1]) and IndexMap (int64
    [.., 3]: out start, in start, length per instance kept), as many as the tags keep (at least one)."""
    x = ins["Ins"]
    outputs = {
        "Out": ((-1, int(x.shape[1])), np.dtype(x.dtype)),
        "LossWeight": ((-1, 1), np.dtype(np.float32)),
        "IndexMap": ((-1, 3), np.dtype(np.int64)),
    }
    return Meta(outputs, "select", fresh=True)


def filter_by_instag_grad_meta(attrs, ins, facts):
    """filter_by_instag_grad: Ins@GRAD of Ins' shape and dtype, Out@GRAD's rows put back at IndexMap's."""
    x = ins["Ins"]
    return Meta({"Ins@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "scatter", fresh=True)
