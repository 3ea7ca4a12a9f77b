"""Op cases for sequence_enumerate, sequence_scatter and row_conv, against numpy references written
from Fluid's docs (row_conv: out_i = sum_{j=i}^{i+context-1} X_j * W_{j-i} within the sequence)."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor
from tests.ops.cases_sequence import lod_tensor, sequences

rng = np.random.default_rng(23)


def enumerate_ref(i, a):
    win, pad = a["win_size"], a["pad_value"]
    rows = []
    for s in sequences(i["X"]):
        ids = s.reshape(-1)
        rows += [[ids[t + k] if t + k < len(ids) else pad for k in range(win)] for t in range(len(ids))]
    return {"Out": np.array(rows, dtype=np.asarray(i["X"]).dtype).reshape(-1, win)}


def scatter_ref(i, a):
    out = np.array(i["X"], dtype=np.float64)
    flat = out.reshape(out.shape[0], -1)
    ids, upd, offs = np.asarray(i["Ids"]).reshape(-1), np.asarray(i["Updates"]).reshape(-1), i["Ids"].lod()[-1]
    for s in range(len(offs) - 1):
        for j in range(offs[s], offs[s + 1]):
            flat[s, ids[j]] += upd[j]
    return {"Out": out}


def row_conv_ref(i, a):
    x, w = np.asarray(i["X"]), i["Filter"]
    seqs = sequences(i["X"]) if isinstance(i["X"], LoDTensor) else list(x)
    out = []
    for s in seqs:
        out.append(np.array([sum(s[t + k] * w[k] for k in range(len(w)) if t + k < len(s)) for t in range(len(s))]))
    return {"Out": np.concatenate(out).reshape(x.shape)}


def _ids(values, lengths, dtype=np.int64):
    t = LoDTensor(np.array(values, dtype=dtype).reshape(-1, 1))
    t.set_recursive_sequence_lengths([lengths])
    return t


IDS = _ids([0, 1, 2, 5, 4, 3, 2, 1, 3, 2, 5, 4], [3, 5, 4])
UPDATES = LoDTensor(rng.normal(size=(12, 1)), IDS.lod())

CASES = [
    OpCase(
        "sequence_enumerate",
        {"X": _ids([1, 2, 3, 4, 5], [3, 2])},
        enumerate_ref,
        attrs={"win_size": 2},
        name="sequence_enumerate",
    ),
    OpCase(
        "sequence_enumerate",
        {"X": _ids([7, 8, 9, 4, 5, 6], [1, 4, 1], np.int32)},
        enumerate_ref,
        attrs={"win_size": 3, "pad_value": -1},
        name="sequence_enumerate_int32_pad",
    ),
    OpCase(
        "sequence_scatter",
        {"X": rng.normal(size=(3, 6)), "Ids": IDS, "Updates": UPDATES},
        scatter_ref,
        grad=("X", "Updates"),
        name="sequence_scatter",
    ),
    OpCase(
        "sequence_scatter",
        {
            "X": rng.normal(size=(4, 2, 3)),
            "Ids": _ids([5, 5, 0, 1, 3], [2, 0, 3]),
            "Updates": LoDTensor(rng.normal(size=(5,)), [[0, 2, 2, 5]]),
        },
        scatter_ref,
        grad=("X", "Updates"),
        name="sequence_scatter_repeat_ids_3d",
    ),
    OpCase(
        "row_conv",
        {"X": lod_tensor([4, 1, 3], 3), "Filter": rng.normal(size=(3, 3))},
        row_conv_ref,
        grad=("X", "Filter"),
        name="row_conv",
    ),
    OpCase(
        "row_conv",
        {"X": lod_tensor([2, 3], 2, upper=[1, 1]), "Filter": rng.normal(size=(2, 2))},
        row_conv_ref,
        grad=("X", "Filter"),
        name="row_conv_2level",
    ),
    OpCase(
        "row_conv",
        {"X": rng.normal(size=(2, 4, 3)), "Filter": rng.normal(size=(3, 3))},
        row_conv_ref,
        grad=("X", "Filter"),
        name="row_conv_padded_batch",
    ),
]
