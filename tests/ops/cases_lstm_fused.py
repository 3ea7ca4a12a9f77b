"""Op cases for ops/lstm_fused.py: numpy references written from Fluid 1.8.5's CPU kernels, one
sequence and one step at a time, with Fluid's CPU vector activations (sigmoid's input clipped to
[-40, 13], tanh 2 sigmoid(2x) - 1): fusion_lstm (fc, then lstm; without H0 the states start at zero
and C0 is not read, as in Fluid's kernel), fused_embedding_fc_lstm (the table's rows, Bias[:4D] not
added) and attention_lstm. Forward only: Fluid gives them no gradient."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor
from tests.ops.cases_sequence import batch_rows, lod_tensor

rng = np.random.default_rng(78)
D, M = 2, 3
_SIG = lambda v: 1 / (1 + np.exp(-np.clip(v, -40, 13)))  # noqa: E731
_TANH = lambda v: 2 * _SIG(2 * v) - 1  # noqa: E731


def _lstm_rows(xx, offs, i, a, peep):
    """Hidden, Cell of Fluid's jit LSTM over the biased gates xx (candidate, input, forget, output)."""
    wh, wp = i["WeightH"], i["Bias"].reshape(-1)[4 * D :]
    hidden, cell = np.zeros((len(xx), D)), np.zeros((len(xx), D))
    for s, (b, e) in enumerate(zip(offs, offs[1:])):
        h, c = (i["H0"][s], i["C0"][s]) if "H0" in i else (np.zeros(D), np.zeros(D))
        for r in range(e - 1, b - 1, -1) if a["is_reverse"] else range(b, e):
            g = xx[r] + h @ wh
            ig = _SIG(g[D : 2 * D] + (wp[:D] * c if peep else 0))
            fg = _SIG(g[2 * D : 3 * D] + (wp[D : 2 * D] * c if peep else 0))
            c = fg * c + ig * _TANH(g[:D])
            h = _SIG(g[3 * D :] + (wp[2 * D :] * c if peep else 0)) * _TANH(c)
            hidden[r], cell[r] = h, c
    return hidden, cell


def _fused_lstm_ref(xx, i, a, seqs):
    hidden, cell = _lstm_rows(xx, seqs.lod()[-1], i, a, a.get("use_peepholes", True))
    rows = batch_rows(seqs, a["is_reverse"])
    outs = {
        "Hidden": hidden,
        "Cell": cell,
        "XX": xx,
        "BatchedInput": xx[rows],
        "BatchedHidden": hidden[rows],
        "BatchedCell": cell[rows],
    }
    if "H0" in i:
        order = np.argsort(-np.diff(seqs.lod()[-1]), kind="stable")
        outs.update(ReorderedH0=i["H0"][order], ReorderedC0=i["C0"][order])
    return outs


def _fusion_lstm_ref(i, a):
    return _fused_lstm_ref(np.asarray(i["X"]) @ i["WeightX"] + i["Bias"][:, : 4 * D], i, a, i["X"])


def _embedding_fc_lstm_ref(i, a):
    return _fused_lstm_ref(i["Embeddings"][np.asarray(i["Ids"])[:, 0]], i, a, i["Ids"])


def _attention_ref(i, a):
    x, offs = np.asarray(i["X"]), i["X"].lod()[-1]
    aw, w, b = i["AttentionWeight"].reshape(-1), i["LSTMWeight"], i["LSTMBias"].reshape(-1)
    atted = x @ aw[:M] + i["AttentionBias"].reshape(-1)
    hidden, cell = np.zeros((len(x), D)), np.zeros((len(x), D))
    for s, (lo, hi) in enumerate(zip(offs, offs[1:])):
        h, c = (i["H0"][s] if "H0" in i else None), i["C0"][s]
        for t in range(lo, hi):
            scores = np.maximum(
                np.maximum(atted[lo:hi] + c @ aw[M:], 0) * i["AttentionScalar"].item()
                + i["AttentionScalarBias"].item(),
                0,
            )
            scores = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
            g = (scores @ x[lo:hi]) @ w[D:] + (h @ w[:D] if h is not None else 0) + b
            c = _SIG(g[:D]) * c + _SIG(g[D : 2 * D]) * _TANH(g[3 * D :])
            h = hidden[t] = _SIG(g[2 * D : 3 * D]) * _TANH(c)
            cell[t] = c
    return {"Hidden": hidden, "Cell": cell, "AttentionedX": atted.reshape(-1, 1)}


def _ids(lengths):
    t = LoDTensor(rng.integers(0, 5, size=(sum(lengths), 1)).astype(np.int64))
    t.set_recursive_sequence_lengths([lengths])
    return t


def _weights(**extra):
    return {"WeightH": rng.normal(size=(D, 4 * D)), "Bias": rng.normal(size=(1, 7 * D)), **extra}


CASES = [
    OpCase(
        "fusion_lstm",
        {
            "X": lod_tensor([3, 1, 2], M, scale=2.0),
            "WeightX": rng.normal(size=(M, 4 * D)),
            **_weights(H0=rng.normal(size=(3, D)), C0=rng.normal(size=(3, D))),
        },
        _fusion_lstm_ref,
        attrs={"is_reverse": True},
    ),
    OpCase(
        "fusion_lstm",
        {"X": lod_tensor([2, 3], M), "WeightX": rng.normal(size=(M, 4 * D)), **_weights(C0=rng.normal(size=(2, D)))},
        _fusion_lstm_ref,
        attrs={"use_seq": False},
        name="fusion_lstm_c0_without_h0_is_not_read",
    ),
    OpCase(
        "fused_embedding_fc_lstm",
        {"Ids": _ids([2, 3]), "Embeddings": rng.normal(size=(5, 4 * D)), **_weights()},
        _embedding_fc_lstm_ref,
        attrs={"is_reverse": False},
    ),
    OpCase(
        "attention_lstm",
        {
            "X": lod_tensor([3, 2], M),
            "C0": rng.normal(size=(2, D)),
            "H0": rng.normal(size=(2, D)),
            "AttentionWeight": rng.normal(size=(M + D, 1)),
            "AttentionBias": rng.normal(size=(1, 1)),
            "AttentionScalar": rng.normal(size=(1, 1)),
            "AttentionScalarBias": rng.normal(size=(1, 1)),
            "LSTMWeight": rng.normal(size=(D + M, 4 * D)),
            "LSTMBias": rng.normal(size=(1, 4 * D)),
        },
        _attention_ref,
    ),
]
