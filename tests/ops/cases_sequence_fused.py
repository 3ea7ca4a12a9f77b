"""Op cases for ops/sequence_fused.py against numpy, each reference written from Fluid 1.8.5's kernel
(and checked against Fluid 1.8.5 itself where noted in docs/COMPAT.md): fused_embedding_seq_pool
(sums of table rows per sequence, padding_idx rows left out; the dense gradient by float64 finite
differences, the sparse one, which keeps padding_idx's rows as Fluid's, as a SelectedRows),
fusion_seqpool_concat and its cvm form (an empty sequence pooled as Fluid's jit SeqPool pools it: the
row that follows), fusion_seqconv_eltadd_relu (context windows, contextStart 1 with Fluid's windows)
and fusion_seqexpand_concat_fc. Forward only elsewhere: Fluid gives them no gradient."""

import numpy as np

from op_test import OpCase
from pe_cli.base.selected_rows import SelectedRows
from pe_cli.framework.lod_tensor import LoDTensor
from tests.ops.cases_sequence import lod_tensor, sequences

rng = np.random.default_rng(77)
_IDS = LoDTensor(np.array([[[1], [3]], [[4], [1]], [[0], [2]], [[3], [3]], [[1], [4]]], dtype=np.int64))
_IDS.set_recursive_sequence_lengths([[2, 0, 3]])


def _emb_ref(i, a):
    ids, w = np.asarray(i["Ids"]).reshape(len(i["Ids"]), -1), i["W"]
    offs = i["Ids"].lod()[-1]
    rows = np.where((ids != a["padding_idx"])[..., None], w[ids], 0).reshape(len(ids), -1)
    return {"Out": np.array([rows[s:e].sum(0) for s, e in zip(offs, offs[1:])])}


def _emb_sparse_grad_ref(i, a):
    ids, offs = np.asarray(i["Ids"]).reshape(-1), i["Ids"].lod()[-1]
    d_out = i["Out@GRAD"].reshape(len(offs) - 1, -1, i["W"].shape[1])
    values = np.concatenate([np.tile(d_out[s], (e - b, 1)) for s, (b, e) in enumerate(zip(offs, offs[1:]))])
    return {"W@GRAD": SelectedRows(ids, values, i["W"].shape[0])}


def _pool(seq, kind, following):
    if len(seq) == 0:  # Fluid's jit SeqPool: an empty sequence gets the row that follows it
        seq = following[:1]
    total = seq.sum(0)
    return total * (1 / len(seq) if kind == "AVERAGE" else 1 / np.sqrt(len(seq)) if kind == "SQRT" else 1)


def _pool_concat_ref(i, a, cvm=False):
    parts = []
    for x in i["X"]:
        offs, rows = x.lod()[-1], np.asarray(x)
        pooled = np.array([_pool(rows[s:e], a["pooltype"], rows[e:]) for s, e in zip(offs, offs[1:])])
        if cvm:
            pooled[:, 0] = np.log(pooled[:, 0] + 1)
            pooled[:, 1] = np.log(pooled[:, 1] + 1) - pooled[:, 0]
        parts.append(pooled)
    return {"Out": np.concatenate(parts, axis=1)}


def _seqconv_ref(i, a):
    start, length, cols = a["contextStart"], a["contextLength"], []
    for seq in sequences(i["X"]):
        n = len(seq)
        last = n - 2 if start == 1 else n - 1  # contextStart 1: Fluid's windows start at the step itself
        for t in range(n):  # and never reach the sequence's last row
            first = t if start == 1 else t + start
            cols.append(
                np.concatenate(
                    [seq[r] if 0 <= r <= last else np.zeros(seq.shape[1]) for r in range(first, first + length)]
                )
            )
    col = np.array(cols)
    return {"Out": np.maximum(col @ i["Filter"] + i["Bias"], 0), "ColMat": col}


def _vec_tanh(v):
    """Fluid's cpu_vec tanh: 2 sigmoid(2x) - 1 of the sigmoid whose input is clipped to [-40, 13]."""
    return 2 / (1 + np.exp(-np.clip(2 * v, -40, 13))) - 1


def _seqexpand_ref(i, a):
    xs, w = i["X"], i["FCWeight"]
    lengths = np.diff(xs[0].lod()[-1])
    widths = np.cumsum([0] + [np.asarray(x).shape[1] for x in xs])
    fc_out = sum(np.asarray(x) @ w[widths[k] : widths[k + 1]] for k, x in enumerate(xs) if k)
    out = np.asarray(xs[0]) @ w[: widths[1]] + i.get("FCBias", 0) + np.repeat(fc_out, lengths, axis=0)
    return {"Out": _vec_tanh(out) if a["fc_activation"] == "tanh" else out, "FCOut": fc_out}


_W = rng.normal(size=(5, 3))
CASES = [
    OpCase(
        "fused_embedding_seq_pool",
        {"W": _W, "Ids": _IDS},
        _emb_ref,
        attrs={"padding_idx": 3},
        grad=("W",),
        name="fused_embedding_seq_pool_padding",
    ),
    OpCase(
        "fused_embedding_seq_pool_grad",
        {"W": _W, "Ids": _IDS, "Out@GRAD": rng.normal(size=(3, 6))},
        _emb_sparse_grad_ref,
        attrs={"is_sparse": True, "padding_idx": 3},
        name="fused_embedding_seq_pool_grad_sparse_keeps_padding_rows",
    ),
    OpCase(
        "fusion_seqpool_concat",
        {"X": [lod_tensor([2, 1, 3], 4), lod_tensor([1, 2, 2], 4)]},
        lambda i, a: _pool_concat_ref(i, a),
        attrs={"pooltype": "SQRT"},
    ),
    OpCase(
        "fusion_seqpool_concat",
        {"X": [lod_tensor([2, 0, 3], 3)]},
        lambda i, a: _pool_concat_ref(i, a),
        name="fusion_seqpool_concat_empty_sequence",
    ),
    OpCase(
        "fusion_seqpool_cvm_concat",
        {
            "X": [
                LoDTensor(np.abs(np.asarray(lod_tensor([2, 1, 3], 4))), [[0, 2, 3, 6]]),
                LoDTensor(rng.uniform(0, 2, size=(4, 4)), [[0, 1, 2, 4]]),
            ],
            "CVM": np.ones((1, 2)),
        },
        lambda i, a: _pool_concat_ref(i, a, cvm=True),
        attrs={"pooltype": "AVERAGE"},
    ),
    OpCase(
        "fusion_seqconv_eltadd_relu",
        {"X": lod_tensor([4, 1, 2], 3), "Filter": rng.normal(size=(9, 2)), "Bias": rng.normal(size=(1, 2))},
        _seqconv_ref,
        attrs={"contextStart": -1, "contextLength": 3},
    ),
    OpCase(
        "fusion_seqconv_eltadd_relu",
        {"X": lod_tensor([5, 4], 2), "Filter": rng.normal(size=(6, 2)), "Bias": rng.normal(size=(1, 2))},
        _seqconv_ref,
        attrs={"contextStart": 1, "contextLength": 3},
        name="fusion_seqconv_eltadd_relu_start_1",
    ),
    OpCase(
        "fusion_seqexpand_concat_fc",
        {
            "X": [lod_tensor([2, 3], 3, scale=4.0), rng.normal(size=(2, 2)) * 4, rng.normal(size=(2, 1))],
            "FCWeight": rng.normal(size=(6, 4)),
            "FCBias": rng.normal(size=(1, 4)),
        },
        _seqexpand_ref,
        attrs={"fc_activation": "tanh"},
    ),
]
