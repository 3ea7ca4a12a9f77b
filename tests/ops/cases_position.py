"""Op cases for add_position_encoding (ops/position.py): a dense batch and a LoD batch, against
Fluid 1.8's numpy reference (test_add_position_encoding_op.py)."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(59)


def _pe(j, size):
    half = size // 2
    out = np.zeros(size)
    for k in range(half):
        val = j / pow(10000.0, k / (half - 1)) if half > 1 else j / 10000.0
        out[k], out[half + k] = np.sin(val), np.cos(val)
    return out


def _dense_ref(i, a):
    x = i["X"]
    out = np.empty_like(x)
    for n in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[n, j] = x[n, j] * a["alpha"] + _pe(j, x.shape[2]) * a["beta"]
    return {"Out": out}


def _lod_ref(i, a):
    x = np.asarray(i["X"])
    offs = i["X"].lod()[0]
    out = np.empty_like(x)
    for s in range(len(offs) - 1):
        for j in range(offs[s + 1] - offs[s]):
            out[offs[s] + j] = x[offs[s] + j] * a["alpha"] + _pe(j, x.shape[1]) * a["beta"]
    return {"Out": out}


CASES = [
    OpCase(
        "add_position_encoding",
        {"X": rng.normal(size=(2, 5, 6))},
        _dense_ref,
        attrs={"alpha": 0.6, "beta": 0.5},
        grad=("X",),
    ),
    OpCase(
        "add_position_encoding",
        {"X": LoDTensor(rng.normal(size=(7, 4)), [[0, 3, 7]])},
        _lod_ref,
        attrs={"alpha": 2.0, "beta": 1.5},
        grad=("X",),
        name="add_position_encoding_lod",
    ),
    OpCase("add_position_encoding", {"X": rng.normal(size=(1, 3, 2))}, _dense_ref, name="add_position_encoding_half1"),
]
