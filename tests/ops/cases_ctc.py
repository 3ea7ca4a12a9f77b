"""Op cases for ctc_align (ops/ctc.py), LoD and padded, against the loop of Fluid 1.8's
test_ctc_align.py."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor


def _align(seq, blank, merge):
    out, prev = [], -1
    for token in seq:
        if token != blank and not (merge and token == prev):
            out.append(token)
        prev = token
    return out


def _lod_ref(i, a):
    ids = np.asarray(i["Input"]).reshape(-1)
    offs = i["Input"].lod()[0]
    out = [t for s in range(len(offs) - 1) for t in _align(ids[offs[s] : offs[s + 1]], a["blank"], a["merge_repeated"])]
    return {"Output": np.array(out or [-1], dtype=ids.dtype).reshape(-1, 1)}


def _padded_ref(i, a):
    x, lengths = i["Input"], i["InputLength"].reshape(-1)
    out = np.full(x.shape, a["padding_value"], dtype=x.dtype)
    count = np.zeros((x.shape[0], 1), dtype=np.int64)
    for b in range(x.shape[0]):
        kept = _align(x[b, : lengths[b]], a["blank"], a["merge_repeated"])
        out[b, : len(kept)] = kept
        count[b] = len(kept)
    return {"Output": out, "OutputLength": count}


_IDS = np.array([0, 1, 2, 2, 0, 4, 0, 4, 5, 0, 6, 6, 0, 0, 7, 7, 7, 0], dtype=np.int32).reshape(-1, 1)

CASES = [
    OpCase("ctc_align", {"Input": LoDTensor(_IDS, [[0, 11, 18]])}, _lod_ref, attrs={"blank": 0}),
    OpCase(
        "ctc_align",
        {"Input": LoDTensor(_IDS.astype(np.int64), [[0, 5, 5, 18]])},
        _lod_ref,
        attrs={"blank": 7, "merge_repeated": False},
        name="ctc_align_no_merge_empty_sequence",
    ),
    OpCase(
        "ctc_align",
        {"Input": LoDTensor(np.zeros((3, 1), np.int64), [[0, 3]])},
        _lod_ref,
        attrs={"blank": 0},
        name="ctc_align_all_blank",
    ),
    OpCase(
        "ctc_align",
        {"Input": _IDS.reshape(3, 6), "InputLength": np.array([[6], [4], [5]], dtype=np.int64)},
        _padded_ref,
        attrs={"blank": 0, "padding_value": -1},
        name="ctc_align_padded",
    ),
]
