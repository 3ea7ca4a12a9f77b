"""Op cases for the row-moving sequence ops (sequence_reverse, sequence_expand, sequence_pad,
sequence_unpad, sequence_erase) and sequence_mask, against numpy references written from Fluid's
docs."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor
from tests.ops.cases_sequence import lod_tensor, sequences
from tests.ops.cases_sequence_metric import H_LEN, HYPS, lod

rng = np.random.default_rng(13)


def reverse_ref(i, a):
    return {"Y": np.concatenate([s[::-1] for s in sequences(i["X"])])}


def expand_ref(i, a):
    """Fluid's rule: a one-level LoD of X groups its rows; a plain X, or one with a deeper LoD (a beam
    search's state), expands row by row."""
    x, y = i["X"], i["Y"]
    one_level = isinstance(x, LoDTensor) and len(x.lod()) == 1
    parts = sequences(x) if one_level else [r[None] for r in np.asarray(x)]
    reps = np.diff(y.lod()[a.get("ref_level", -1)])  # the counts of Y's LoD level ref_level
    return {"Out": np.concatenate([p for p, n in zip(parts, reps) for _ in range(n)])}


def pad_ref(i, a):
    seqs = sequences(i["X"])
    n = max(len(s) for s in seqs) if a["padded_length"] < 0 else a["padded_length"]
    pad = np.asarray(i["PadValue"])
    out = np.empty((len(seqs), n) + seqs[0].shape[1:])
    for k, s in enumerate(seqs):
        out[k] = pad.reshape(s.shape[1:]) if pad.size > 1 else pad.reshape(())
        out[k, : len(s)] = s
    return {"Out": out, "Length": np.array([len(s) for s in seqs], dtype=np.int64)}


def unpad_ref(i, a):
    x, n = i["X"], i["Length"]
    out = np.concatenate([x[k, :m] for k, m in enumerate(n)])
    return {"Out": out.reshape(-1, 1) if x.ndim == 2 else out}  # 2-D X: Out [N, 1], as Fluid's


def mask_ref(i, a):
    x = i["X"]
    n = x.max() if a["maxlen"] < 0 else a["maxlen"]
    return {"Y": (np.arange(n) < x[..., None]).astype(a["out_dtype"])}


Y_LOD = LoDTensor(np.zeros((6, 1)), [[0, 2, 2, 6]])
Y_TWO_LEVELS = LoDTensor(np.zeros((6, 1)), [[0, 1, 3, 4], [0, 2, 3, 5, 6]])  # 3 sequences of 1, 2, 1 inner ones

CASES = [
    OpCase("sequence_reverse", {"X": lod_tensor([3, 1, 4], 2)}, reverse_ref, grad=("X",), name="sequence_reverse"),
    OpCase(
        "sequence_expand",
        {"X": lod_tensor([2, 1, 2], 3), "Y": Y_LOD},
        expand_ref,
        grad=("X",),
        name="sequence_expand_lod_x",
    ),
    OpCase(
        "sequence_expand",
        {"X": rng.normal(size=(3, 2)), "Y": Y_LOD},
        expand_ref,
        grad=("X",),
        name="sequence_expand_plain_x",
    ),
    # ref_level 0 of a two-level Y (test_sequence_expand.py's Case2): repeats counted in inner sequences
    OpCase(
        "sequence_expand",
        {"X": lod_tensor([2, 1, 2], 3), "Y": Y_TWO_LEVELS},
        expand_ref,
        grad=("X",),
        attrs={"ref_level": 0},
        name="sequence_expand_ref_level_0",
    ),
    OpCase(
        "sequence_expand",
        {"X": lod_tensor([1, 2], 2, upper=[1, 1]), "Y": Y_LOD},
        expand_ref,
        grad=("X",),
        name="sequence_expand_two_level_x_by_rows",
    ),
    OpCase(
        "sequence_pad",
        {"X": lod_tensor([3, 1, 4], 2), "PadValue": np.array([0.5])},
        pad_ref,
        grad=("X",),
        name="sequence_pad",
    ),
    OpCase(
        "sequence_pad",
        {"X": lod_tensor([2, 3], 2), "PadValue": np.array([1.0, -1.0])},
        pad_ref,
        attrs={"padded_length": 5},
        grad=("X",),
        name="sequence_pad_length5_step_value",
    ),
    OpCase(
        "sequence_unpad",
        {"X": rng.normal(size=(3, 4, 2)), "Length": np.array([2, 4, 0], dtype=np.int64)},
        unpad_ref,
        grad=("X",),
        name="sequence_unpad",
    ),
    OpCase(
        "sequence_unpad",
        {"X": rng.normal(size=(3, 5)), "Length": np.array([2, 5, 3], dtype=np.int64)},
        unpad_ref,
        grad=("X",),
        name="sequence_unpad_2d",
    ),
    OpCase("sequence_mask", {"X": np.array([3, 0, 5, 1], dtype=np.int64)}, mask_ref, name="sequence_mask"),
    OpCase(
        "sequence_mask",
        {"X": np.array([[2], [4]], dtype=np.int64)},
        mask_ref,
        attrs={"maxlen": 6, "out_dtype": "float32"},
        name="sequence_mask_maxlen",
    ),
    OpCase(  # (lengths past maxlen and below 0, int32; a bool mask)
        "sequence_mask",
        {"X": np.array([[7, -2], [0, 3]], dtype=np.int32)},
        mask_ref,
        attrs={"maxlen": 4, "out_dtype": "bool"},
        name="sequence_mask_clipped_bool",
    ),
    OpCase(
        "sequence_mask",
        {"X": np.array([[2], [4]], dtype=np.int64), "MaxLenTensor": np.array([5], np.int32)},
        lambda i, a: {"Y": (np.arange(5) < i["X"][..., None]).astype("int64")},
        name="sequence_mask_tensor",
    ),
]


def erase_ref(i, a):
    x, offs = np.asarray(i["X"]).reshape(-1), i["X"].lod()[-1]
    parts = [[v for v in x[s:e] if v not in a["tokens"]] for s, e in zip(offs, offs[1:])]
    return {"Out": np.array([v for p in parts for v in p], np.int64).reshape(-1, 1)}


CASES.append(
    OpCase("sequence_erase", {"X": lod(HYPS, H_LEN)}, erase_ref, attrs={"tokens": [0, 2]}, name="sequence_erase")
)
