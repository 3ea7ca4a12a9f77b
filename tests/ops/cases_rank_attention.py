"""Op cases for rank_attention (ops/rank_attention.py): a loop over instances and pairs in plain
numpy, instances without a rank and pairs without one included; RankParam's gradient by finite
differences (X has none, as in Fluid)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(47)
_R, _C, _P = 3, 2, 4
_X = rng.normal(size=(4, _C))
_OFFSET = np.array(
    [
        [1, 1, 0, 2, 1, 0, 0],  # rank 1: pairs (1, row 0), (2, row 1)
        [2, 1, 2, 2, 3, 3, 1],  # rank 2: three pairs
        [0, 1, 0, 0, 0, 0, 0],  # no rank: zeros
        [3, 3, 3, 0, 0, 1, 2],
    ],
    dtype=np.int32,
)
_PARAM = rng.normal(size=(_C * _R * _R, _P))


def _ref(i, a):
    x, off, param = i["X"], i["RankOffset"], i["RankParam"].reshape(_R * _R, _C, _P)
    out, help_ = np.zeros((4, _P)), np.zeros((4, _R * _C))
    for n in range(4):
        for k in range(_R):
            lower, faster, row = off[n, 0] - 1, off[n, 1 + 2 * k] - 1, off[n, 2 + 2 * k]
            if lower < 0 or faster < 0:
                continue
            help_[n, k * _C : (k + 1) * _C] = x[row]
            out[n] += x[row] @ param[lower * _R + faster]
    return {"Out": out, "InputHelp": help_, "InsRank": off[:, :1].astype(np.float64)}


CASES = [
    OpCase(
        "rank_attention",
        {"X": _X, "RankOffset": _OFFSET, "RankParam": _PARAM},
        _ref,
        attrs={"MaxRank": _R},
        grad=("RankParam",),
        loss_outputs=("Out",),
    )
]
