"""CPU out-kernels of the CRF ops (ops/crf.py; their meta rules: shapes/structured_prediction.py, fresh variants): kernels/seq_dp.py's per-sequence programs, compiled by
numba (cpu/_crf_loops.py), one call per sequence without the GIL."""

import numpy as np

from ..seq_dp import check_tags, crf_spans, span_mask, tag_rows
from ..structured import fresh_outputs
from .runtime.loops import lazy

_loops = lazy("_crf_loops")


def _rows(x, rows):
    return np.ascontiguousarray(x).reshape(rows, x.shape[-1])


def linear_chain_crf(ins, outs, attrs, meta, ctx):
    x, w = ins["Emission"], np.ascontiguousarray(ins["Transition"])
    starts, ends, rows = crf_spans(x.shape, ctx, ("Label", "Emission"), ins.get("Length"))
    d = x.shape[-1]
    x2 = _rows(x, rows)
    label = tag_rows(ins["Label"], rows)
    check_tags(label, starts, ends, d)
    rowmax = x2.max(axis=1) if rows else np.zeros(0, x.dtype)
    xexp = np.exp(x2 - rowmax[:, None])
    wexp = np.exp(w)
    alpha = np.zeros_like(x2)
    ll = np.zeros(starts.size, x.dtype)
    _loops().crf_forward(x2, xexp, rowmax, w, wexp, label, starts, ends, alpha, ll)
    results = {"Alpha": alpha.reshape(x.shape), "EmissionExps": xexp.reshape(x.shape), "TransitionExps": wexp}
    fresh_outputs({**results, "LogLikelihood": ll.reshape(-1, 1)}, ins, outs, meta)


def linear_chain_crf_grad(ins, outs, attrs, meta, ctx):
    alpha, xexp, wexp = ins["Alpha"], ins["EmissionExps"], ins["TransitionExps"]
    starts, ends, rows = crf_spans(alpha.shape, ctx, ("Label", "Alpha"), ins.get("Length"))
    d = alpha.shape[-1]
    label = tag_rows(ins["Label"], rows)
    dll = np.ascontiguousarray(ins["LogLikelihood@GRAD"]).reshape(-1)
    dx = np.zeros((rows, d), alpha.dtype)
    beta = np.zeros((rows, d), alpha.dtype)
    dw = np.zeros((starts.size,) + wexp.shape, wexp.dtype)
    _loops().crf_backward(
        _rows(xexp, rows), np.ascontiguousarray(wexp), _rows(alpha, rows), label, starts, ends, dll, beta, dx, dw
    )
    fresh_outputs({"Emission@GRAD": dx.reshape(alpha.shape), "Transition@GRAD": dw.sum(axis=0)}, ins, outs, meta)


def crf_decoding(ins, outs, attrs, meta, ctx):
    x, w = ins["Emission"], np.ascontiguousarray(ins["Transition"])
    starts, ends, rows = crf_spans(x.shape, ctx, ("Emission", "Label"), ins.get("Length"))
    d = x.shape[-1]
    score = np.zeros((rows, d), x.dtype)
    track = np.zeros((rows, d), np.int64)
    path = np.zeros(rows, np.int64)
    _loops().viterbi(_rows(x, rows), w, starts, ends, score, track, path)
    if "Label" in ins:
        path = ((tag_rows(ins["Label"], rows) == path) & span_mask(starts, ends, rows)).astype(np.int64)
    shape = x.shape[:2] if "Length" in ins else (rows, 1)
    fresh_outputs({"ViterbiPath": path.reshape(shape)}, ins, outs, meta)


# (the sequences: the call's LoD, or the Length tensor's values)
linear_chain_crf.takes_context = linear_chain_crf_grad.takes_context = crf_decoding.takes_context = True
