"""Meta rules of the text-matching ops (ops/text_matching.py): ``fresh`` variants, their numpy forms (one pair of
sequences at a time, kernels/cpu/text_matching.py) making the arrays they hand over; a forward output's length
follows the pairs' sizes (-1 here: the out-kernel's), a gradient has its input's shape."""

import numpy as np

from .structured import Meta


def _spec(a, dtype=None):
    return (tuple(a.shape), np.dtype(a.dtype if dtype is None else dtype))


def match_matrix_tensor_meta(attrs, ins, facts):
    """match_matrix_tensor: Out [.., 1] of X's dtype; Tmp = X W, [rows of X * dim_t * h, 1]."""
    x, w = ins["X"], ins["W"]
    tmp = (int(x.shape[0]) * int(w.shape[1]) * int(w.shape[2]), 1)
    outputs = {"Out": ((-1, 1), np.dtype(x.dtype)), "Tmp": (tmp, np.result_type(x.dtype, w.dtype))}
    return Meta(outputs, "pairs", fresh=True)


def match_matrix_tensor_grad_meta(attrs, ins, facts):
    """match_matrix_tensor_grad: X@GRAD, Y@GRAD and W@GRAD of their inputs' shapes (X W's dtype, Y's)."""
    x, y, w = ins["X"], ins["Y"], ins["W"]
    dtype = np.result_type(x.dtype, w.dtype)
    outputs = {"X@GRAD": _spec(x, dtype), "Y@GRAD": _spec(y), "W@GRAD": _spec(w, dtype)}
    return Meta(outputs, "pairs", fresh=True)


def var_conv_2d_meta(attrs, ins, facts):
    """var_conv_2d: Out and Col [.., 1] of X's dtype."""
    dtype = np.dtype(ins["X"].dtype)
    return Meta({"Out": ((-1, 1), dtype), "Col": ((-1, 1), dtype)}, "pairs", fresh=True)


def var_conv_2d_grad_meta(attrs, ins, facts):
    """var_conv_2d_grad: X@GRAD of X's shape and dtype, W@GRAD of W's."""
    return Meta({"X@GRAD": _spec(ins["X"]), "W@GRAD": _spec(ins["W"])}, "pairs", fresh=True)


def sequence_topk_avg_pooling_meta(attrs, ins, facts):
    """sequence_topk_avg_pooling: Out [rows of ROW, channel_num * len(topks)] of X's dtype, pos (int32)."""
    width = attrs["channel_num"] * len(attrs["topks"])
    outputs = {"Out": ((-1, width), np.dtype(ins["X"].dtype)), "pos": ((-1,), np.dtype(np.int32))}
    return Meta(outputs, "pairs", fresh=True)


def sequence_topk_avg_pooling_grad_meta(attrs, ins, facts):
    """sequence_topk_avg_pooling_grad: X@GRAD of X's shape and dtype."""
    return Meta({"X@GRAD": _spec(ins["X"])}, "pairs", fresh=True)
