"""Op cases for the ops that reshape the LoD (sequence_expand_as, sequence_concat, sequence_slice,
sequence_reshape, lod_reset), against numpy references written from Fluid's docs; 2-level LoD where the op
keeps the upper level."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor
from tests.ops.cases_sequence import lod_tensor, sequences

rng = np.random.default_rng(21)


def expand_as_ref(i, a):
    reps = np.diff(i["Y"].lod()[-1])
    return {"Out": np.repeat(np.asarray(i["X"]), reps, axis=0)}


def concat_ref(i, a):
    per_input = [sequences(x) for x in i["X"]]
    return {"Out": np.concatenate([s for group in zip(*per_input) for s in group])}


def slice_ref(i, a):
    parts = [s[o : o + n] for s, o, n in zip(sequences(i["X"]), i["Offset"].reshape(-1), i["Length"].reshape(-1))]
    return {"Out": np.concatenate(parts)}


def reshape_ref(i, a):
    return {"Out": np.asarray(i["X"]).reshape(-1, a["new_dim"])}


def _ids(*values):
    return np.array(values, dtype=np.int64).reshape(-1, 1)


Y3 = LoDTensor(np.zeros((6, 1)), [[0, 2, 2, 6]])
Y2LEVEL = LoDTensor(np.zeros((5, 1)), [[0, 1, 3], [0, 2, 3, 5]])

CASES = [
    OpCase(
        "sequence_expand_as",
        {"X": rng.normal(size=(3, 2)), "Y": Y3},
        expand_as_ref,
        grad=("X",),
        name="sequence_expand_as",
    ),
    OpCase(
        "sequence_expand_as",
        {"X": rng.normal(size=(3, 2, 2)), "Y": Y2LEVEL},
        expand_as_ref,
        grad=("X",),
        name="sequence_expand_as_2level_y",
    ),
    OpCase(
        "sequence_concat",
        {"X": [lod_tensor([2, 1, 3], 3), lod_tensor([1, 0, 2], 3)]},
        concat_ref,
        grad=("X",),
        name="sequence_concat",
    ),
    OpCase(
        "sequence_concat",
        {
            "X": [
                lod_tensor([2, 1], 2, upper=[1, 1]),
                lod_tensor([1, 3], 2, upper=[1, 1]),
                lod_tensor([2, 2], 2, upper=[1, 1]),
            ]
        },
        concat_ref,
        grad=("X",),
        name="sequence_concat_three_2level",
    ),
    OpCase(
        "sequence_slice",
        {"X": lod_tensor([4, 2, 3], 3), "Offset": _ids(1, 0, 2), "Length": _ids(2, 2, 0)},
        slice_ref,
        grad=("X",),
        name="sequence_slice",
    ),
    OpCase(
        "sequence_slice",
        {"X": lod_tensor([3, 2, 4], 2, upper=[2, 1]), "Offset": _ids(0, 1, 1), "Length": _ids(3, 1, 2)},
        slice_ref,
        grad=("X",),
        name="sequence_slice_2level",
    ),
    OpCase(
        "sequence_reshape",
        {"X": lod_tensor([2, 4, 1], 6)},
        reshape_ref,
        attrs={"new_dim": 3},
        grad=("X",),
        name="sequence_reshape_narrower",
    ),
    OpCase(
        "sequence_reshape",
        {"X": lod_tensor([2, 4, 0], 2, upper=[2, 1])},
        reshape_ref,
        attrs={"new_dim": 4},
        grad=("X",),
        name="sequence_reshape_wider_2level",
    ),
    OpCase(
        "lod_reset",
        {"X": rng.normal(size=(5, 3))},
        lambda i, a: {"Out": i["X"]},
        attrs={"target_lod": [0, 2, 5]},
        grad=("X",),
    ),
]
