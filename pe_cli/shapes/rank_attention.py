"""The meta rules (shapes/structured.py) of rank_attention and rank_attention_grad (ops/rank_attention.py;
out-kernels: kernels/cpu/rank_attention.py). X [N, C] and RankParam [C * MaxRank^2, P] (other rows refused, with the
kernel's line): Out [N, P], InputHelp [N, MaxRank * C] and InsRank [N, 1] in X's dtype; RankParam@GRAD of RankParam's
shape and dtype. Variant "numpy", ``fresh``: numpy's gather, einsum and scatter-add make the outputs (a rank or a row
of RankOffset out of range refused by the out-kernels: the values tell)."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta


def _checked(ins, rank):
    n, c = ins["X"].shape
    rows = ins["RankParam"].shape[0]
    if rows != c * rank * rank:
        raise PeError(f"rank_attention: RankParam has {rows} rows, X's width * MaxRank^2 is {c * rank * rank}")
    return n, c


def rank_attention_meta(attrs, ins, facts):
    rank = attrs["MaxRank"]
    n, c = _checked(ins, rank)
    dtype = np.dtype(ins["X"].dtype)
    outputs = {
        "Out": ((n, ins["RankParam"].shape[1]), dtype),
        "InputHelp": ((n, rank * c), dtype),
        "InsRank": ((n, 1), dtype),
    }
    return Meta(outputs, "numpy", fresh=True)


def rank_attention_grad_meta(attrs, ins, facts):
    _checked(ins, attrs["MaxRank"])
    param = ins["RankParam"]
    return Meta({"RankParam@GRAD": (tuple(param.shape), np.dtype(param.dtype))}, "numpy", fresh=True)
