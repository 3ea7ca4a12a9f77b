"""Op cases for linear_chain_crf and crf_decoding against numpy references written from Fluid's
documented formulas: -log p(label | x) = log Z - score(label), with log Z from the forward recursion
in log space (Alpha: each step's forward vector normalized to sum 1), and Viterbi paths found by
scoring every tag path (small tag counts)."""

import itertools

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(21)


def _logsumexp(v, axis=None):
    m = np.max(v, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(v - m), axis=axis))


def _softmax(v):
    e = np.exp(v - v.max())
    return e / e.sum()


def _spans(i, x):
    """(rows view [R, D], [(start, end)], padded) of a case's emission."""
    if "Length" in i:
        b, t, d = x.shape
        return x.reshape(b * t, d), [(k * t, k * t + int(n)) for k, n in enumerate(np.ravel(i["Length"]))], True
    offs = i["Emission"].lod()[-1]
    return x, list(zip(offs[:-1], offs[1:])), False


def path_score(x, w, tags, a):
    """start + emissions + transitions + end of one tag path over rows a.. of x."""
    s = w[0, tags[0]] + w[1, tags[-1]] + sum(x[a + k, t] for k, t in enumerate(tags))
    return s + sum(w[2 + p, q] for p, q in zip(tags[:-1], tags[1:]))


def crf_ref(i, attrs):
    x0 = np.asarray(i["Emission"])
    w = np.asarray(i["Transition"])
    x, spans, _ = _spans(i, x0)
    label = np.asarray(i["Label"]).reshape(-1)
    alpha, ll = np.zeros_like(x), []
    for a, b in spans:
        if a == b:
            ll.append(0.0)
            continue
        la = w[0] + x[a]
        alpha[a] = _softmax(la)
        for k in range(a + 1, b):
            la = _logsumexp(la[:, None] + w[2:], axis=0) + x[k]
            alpha[k] = _softmax(la)
        ll.append(_logsumexp(la + w[1]) - path_score(x, w, label[a:b], a))
    return {
        "Alpha": alpha.reshape(x0.shape),
        "EmissionExps": np.exp(x0 - x0.max(axis=-1, keepdims=True)),
        "TransitionExps": np.exp(w),
        "LogLikelihood": np.array(ll, dtype=x.dtype).reshape(-1, 1),
    }


def decoding_ref(i, attrs):
    x0 = np.asarray(i["Emission"])
    w = np.asarray(i["Transition"])
    x, spans, padded = _spans(i, x0)
    path = np.zeros(x.shape[0], np.int64)
    inside = np.zeros(x.shape[0], bool)
    for a, b in spans:
        if a < b:
            best = max(itertools.product(range(x.shape[1]), repeat=b - a), key=lambda t: path_score(x, w, t, a))
            path[a:b] = best
            inside[a:b] = True
    if "Label" in i:
        path = ((np.asarray(i["Label"]).reshape(-1) == path) & inside).astype(np.int64)
    return {"ViterbiPath": path.reshape(x0.shape[:2] if padded else (-1, 1))}


def lod(values, lengths):
    return LoDTensor(values, [[0] + [int(v) for v in np.cumsum(lengths)]])


def crf_inputs(lengths, d, padded_to=None):
    n = sum(lengths)
    x = rng.uniform(-1, 1, size=(n, d))
    w = rng.uniform(-0.5, 0.5, size=(d + 2, d))
    label = rng.integers(0, d, size=(n, 1)).astype(np.int64)
    if padded_to is None:
        return {"Emission": lod(x, lengths), "Transition": w, "Label": lod(label, lengths)}
    xp = rng.uniform(-1, 1, size=(len(lengths), padded_to, d))  # padding rows hold noise too
    lp = np.zeros((len(lengths), padded_to, 1), np.int64)
    for k, (a, m) in enumerate(zip(np.cumsum([0] + lengths[:-1]), lengths)):
        xp[k, :m], lp[k, :m] = x[a : a + m], label[a : a + m]
    return {"Emission": xp, "Transition": w, "Label": lp, "Length": np.array(lengths, np.int64)}


def _no_label(inputs):
    return {k: v for k, v in inputs.items() if k != "Label"}


def _tied():
    """Fluid's test: every score rises with the tag id, so the path is the last tag everywhere."""
    lengths, d = [1, 0, 3, 2], 5
    x = np.tile(np.arange(d, dtype=np.float64), (sum(lengths), 1))
    w = np.tile(np.arange(d, dtype=np.float64), (d + 2, 1))
    label = rng.integers(0, d, size=(sum(lengths), 1)).astype(np.int64)
    return {"Emission": lod(x, lengths), "Transition": w, "Label": lod(label, lengths)}


CASES = [
    OpCase(
        "linear_chain_crf",
        crf_inputs([3, 1, 0, 4], 4),
        crf_ref,
        grad=("Emission", "Transition"),
        loss_outputs=("LogLikelihood",),
        name="linear_chain_crf",
    ),
    OpCase(
        "linear_chain_crf",
        crf_inputs([2, 4, 0], 3, padded_to=4),
        crf_ref,
        grad=("Emission", "Transition"),
        loss_outputs=("LogLikelihood",),
        name="linear_chain_crf_padded_length",
    ),
    OpCase("crf_decoding", _no_label(crf_inputs([3, 1, 4, 2], 3)), decoding_ref, name="crf_decoding"),
    OpCase("crf_decoding", crf_inputs([2, 0, 4], 3), decoding_ref, name="crf_decoding_label"),
    OpCase("crf_decoding", _tied(), decoding_ref, name="crf_decoding_label_rising_scores"),
    OpCase("crf_decoding", crf_inputs([2, 4, 0], 3, padded_to=4), decoding_ref, name="crf_decoding_padded_label"),
    OpCase("crf_decoding", _no_label(crf_inputs([3, 1], 3, padded_to=3)), decoding_ref, name="crf_decoding_padded"),
]
