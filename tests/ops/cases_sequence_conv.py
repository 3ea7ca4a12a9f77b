"""Op cases for sequence_conv: a numpy reference that walks each step's context window."""

import numpy as np

from op_test import OpCase
from tests.ops.cases_sequence import lod_tensor

rng = np.random.default_rng(15)


def _outside(i, a, lo, hi, src):
    """A step outside its sequence: zeros, or with paddingTrainable PaddingData's row up + d (d steps
    before the start, d < 0, or past the end, d >= 0), as Fluid's."""
    if not a.get("paddingTrainable"):
        return np.zeros(np.asarray(i["X"]).shape[1])
    up = max(0, -a["contextStart"])
    return i["PaddingData"][up + (src - lo if src < lo else src - hi)]


def conv_ref(i, a):
    x, offs = np.asarray(i["X"]), i["X"].lod()[-1]
    n, start = a["contextLength"], a["contextStart"]
    out = []
    for s in range(len(offs) - 1):
        for t in range(offs[s], offs[s + 1]):
            window = [
                x[t + start + k]
                if offs[s] <= t + start + k < offs[s + 1]
                else _outside(i, a, offs[s], offs[s + 1], t + start + k)
                for k in range(n)
            ]
            out.append(np.concatenate(window) @ i["Filter"])
    return {"Out": np.array(out)}


CASES = [
    OpCase(
        "sequence_conv",
        {"X": lod_tensor([4, 1, 3], 3), "Filter": rng.normal(size=(9, 5))},
        conv_ref,
        attrs={"contextLength": 3, "contextStart": -1},
        grad=("X", "Filter"),
        name="sequence_conv",
    ),
    OpCase(
        "sequence_conv",
        {"X": lod_tensor([2, 5], 2), "Filter": rng.normal(size=(8, 3))},
        conv_ref,
        attrs={"contextLength": 4, "contextStart": -2},
        grad=("X", "Filter"),
        name="sequence_conv_len4",
    ),
    # trainable padding (test_sequence_conv.py's paddingTrainable cases): 2 rows before, 2 past the end,
    # a sequence shorter than the window
    OpCase(
        "sequence_conv",
        {"X": lod_tensor([4, 1, 3], 3), "Filter": rng.normal(size=(15, 2)), "PaddingData": rng.normal(size=(4, 3))},
        conv_ref,
        attrs={"contextLength": 5, "contextStart": -2, "paddingTrainable": True},
        grad=("X", "Filter", "PaddingData"),
        name="sequence_conv_trainable_padding",
    ),
]
