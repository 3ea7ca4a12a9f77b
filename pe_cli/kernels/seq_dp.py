"""Dynamic programs over one sequence (linear-chain CRF, Viterbi, Levenshtein, chunk spans),
written once as scalar Python: kernels/cpu/_crf_loops.py compiles them with numba's njit (one
call per sequence in a loop that releases the GIL) and kernels/cuda/crf.py with cuda.jit as
device functions (one thread per sequence), so both devices run the same arithmetic.

Rows a..b-1 of 2-D arrays are the sequence's steps; Transition ``w`` is [D + 2, D] (row 0 start,
row 1 end, row 2 + i the weights from tag i). Also host-side helpers (numpy) that find the spans."""
import math

import numpy as np

from ..errors import PeError


def crf_forward(x, xexp, rowmax, w, wexp, label, a, b, alpha):
    """Alpha rows a..b-1 (each normalized to sum 1) and the sequence's -log p(label | x)."""
    d = x.shape[1]
    s = 0.0
    for i in range(d):
        alpha[a, i] = wexp[0, i] * xexp[a, i]
        s += alpha[a, i]
    for i in range(d):
        alpha[a, i] /= s
    ll = -rowmax[a] - math.log(s)
    for k in range(a + 1, b):
        s = 0.0
        for i in range(d):
            acc = 0.0
            for j in range(d):
                acc += alpha[k - 1, j] * wexp[j + 2, i]
            alpha[k, i] = xexp[k, i] * acc
            s += alpha[k, i]
        for i in range(d):
            alpha[k, i] /= s
        ll -= rowmax[k] + math.log(s)
    s = 0.0
    for i in range(d):
        s += alpha[b - 1, i] * wexp[1, i]
    ll -= math.log(s)
    ll += w[0, label[a]] + x[a, label[a]] + w[1, label[b - 1]]
    for k in range(a + 1, b):
        ll += x[k, label[k]] + w[label[k - 1] + 2, label[k]]
    return -ll


def crf_backward(xexp, wexp, alpha, label, a, b, g, beta, dx, dw, s_idx):
    """d(-log p)/d emission into dx rows a..b-1 and d/d transition into dw[s_idx], times g;
    beta rows a..b-1 are scratch (the normalized backward vectors)."""
    d = xexp.shape[1]
    s = 0.0
    for i in range(d):
        beta[b - 1, i] = wexp[1, i]
        s += wexp[1, i]
    for i in range(d):
        beta[b - 1, i] /= s
    for k in range(b - 2, a - 1, -1):
        s = 0.0
        for i in range(d):
            acc = 0.0
            for j in range(d):
                acc += wexp[i + 2, j] * xexp[k + 1, j] * beta[k + 1, j]
            beta[k, i] = acc
            s += acc
        for i in range(d):
            beta[k, i] /= s
    for k in range(a, b):
        s = 0.0
        for i in range(d):
            s += alpha[k, i] * beta[k, i]
        for i in range(d):
            dx[k, i] = alpha[k, i] * beta[k, i] / s * g
        dx[k, label[k]] -= g
    for i in range(d):
        dw[s_idx, 0, i] += dx[a, i]
        dw[s_idx, 1, i] += dx[b - 1, i]
    for k in range(a + 1, b):
        total = 0.0
        for i in range(d):
            for j in range(d):
                total += wexp[i + 2, j] * alpha[k - 1, i] * beta[k, j] * xexp[k, j]
        for i in range(d):
            for j in range(d):
                dw[s_idx, i + 2, j] += wexp[i + 2, j] * alpha[k - 1, i] * beta[k, j] * xexp[k, j] / total * g
        dw[s_idx, label[k - 1] + 2, label[k]] -= g


def viterbi(x, w, a, b, score, track, path):
    """The best tag path of rows a..b-1 into path[a:b]; score and track rows are scratch.
    A tie keeps the lowest tag, as Fluid's strict '>' does."""
    d = x.shape[1]
    for i in range(d):
        score[a, i] = w[0, i] + x[a, i]
    for k in range(a + 1, b):
        for i in range(d):
            best = -math.inf
            arg = 0
            for j in range(d):
                v = score[k - 1, j] + w[j + 2, i]
                if v > best:
                    best = v
                    arg = j
            score[k, i] = best + x[k, i]
            track[k, i] = arg
    best = -math.inf
    arg = 0
    for i in range(d):
        v = score[b - 1, i] + w[1, i]
        if v > best:
            best = v
            arg = i
    path[b - 1] = arg
    for k in range(b - 1, a, -1):
        arg = track[k, arg]
        path[k - 1] = arg


# -- host side: where the sequences are -----------------------------------------------------------

def lod_spans(attrs, slots, rows):
    """(starts, ends) of the sequences of the last LoD level of the first of ``slots`` that has one."""
    lods = attrs.get("_lod") or {}
    lod = next((lods[s] for s in slots if lods.get(s)), None)
    if lod is None:
        raise PeError(f"input {slots[0]} has no LoD: feed a LoDTensor (fluid.create_lod_tensor), or pass "
                      f"length= with padded [B, T, ...] input")
    offs = np.asarray(lod[-1], dtype=np.int64)
    if offs[-1] != rows:
        raise PeError(f"input {slots[0]}'s LoD ends at {int(offs[-1])} but it has {rows} rows")
    return offs[:-1].copy(), offs[1:].copy()


def padded_spans(length, batch, steps):
    """(starts, ends) of sequence i in the rows of a [batch, steps] batch flattened: i*steps + [0, length[i])."""
    length = np.asarray(length, dtype=np.int64).reshape(-1)
    if length.size != batch:
        raise PeError(f"Length has {length.size} values for a batch of {batch} padded sequences")
    if length.size and (length.min() < 0 or length.max() > steps):
        raise PeError(f"Length values must lie in [0, {steps}] (the padded length), got {length.tolist()}")
    starts = np.arange(batch, dtype=np.int64) * steps
    return starts, starts + length


def span_mask(starts, ends, rows):
    """True for the rows inside some sequence."""
    m = np.zeros(rows + 1, np.int64)
    np.add.at(m, starts, 1)
    np.add.at(m, ends, -1)
    return np.cumsum(m)[:-1] > 0


def check_tags(label, starts, ends, num_tags, what="Label"):
    """Every tag id inside a sequence lies in [0, num_tags)."""
    inside = label[span_mask(starts, ends, label.shape[0])]
    if inside.size and (inside.min() < 0 or inside.max() >= num_tags):
        raise PeError(f"{what} holds tag ids outside [0, {num_tags}) (the emission width): "
                      f"{int(inside.min())}..{int(inside.max())}")


def crf_spans(x_shape, attrs, slots, length=None):
    """(starts, ends, rows): the sequences of a CRF input as rows of its [rows, D] view; padded
    [B, T, D] input with ``length`` (host values), else the LoD of the first of ``slots`` with one."""
    if length is not None:
        batch, steps = x_shape[:2]
        starts, ends = padded_spans(length, batch, steps)
        return starts, ends, batch * steps
    starts, ends = lod_spans(attrs, slots, x_shape[0])
    return starts, ends, x_shape[0]


def tag_rows(label, rows, what="Label"):
    """A label tensor as one int64 tag id per row of the emission's [rows, D] view."""
    label = np.asarray(label)
    if label.size != rows:
        raise PeError(f"{what} has {label.size} tag ids for {rows} emission steps; give one per step")
    return np.ascontiguousarray(label).reshape(rows).astype(np.int64, copy=False)
