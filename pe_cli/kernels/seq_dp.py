"""Dynamic programs over one sequence (linear-chain CRF, Viterbi, Levenshtein, chunk spans),
written once as scalar Python: kernels/cpu/_crf_loops.py compiles them with numba's njit (one
call per sequence in a loop that releases the GIL) and kernels/cuda/crf.py with cuda.jit as
device functions (one thread per sequence), so both devices run the same arithmetic.

Rows a..b-1 of 2-D arrays are the sequence's steps; Transition ``w`` is [D + 2, D] (row 0 start,
row 1 end, row 2 + i the weights from tag i). Also host-side helpers (numpy) that find the spans."""

import math

import numpy as np

from ..base.errors import PeError


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


def chunk_spans(tags, a, b, kinds, other, t_begin, t_inside, t_end, t_single, begins, ends, types):
    """The chunks of tags[a:b] (tag id = type * kinds + kind; type ``other`` is outside any chunk)
    written at begins/ends/types[a:]; returns how many. Fluid's rules: a chunk ends before a step
    of another type or 'outside', before B or S after B or I, and after E or S; one begins at B or S,
    at a new type, and at I or E right after E or S."""
    n = 0
    start = 0
    inside = False
    tag = -1
    typ = other
    for i in range(a, b):
        ptag = tag
        ptype = typ
        tag = tags[i] % kinds
        typ = tags[i] // kinds
        if ptype == other:
            ended = False
        elif typ == other or typ != ptype:
            ended = True
        elif ptag == t_begin or ptag == t_inside:
            ended = tag == t_begin or tag == t_single
        else:
            ended = ptag == t_end or ptag == t_single
        if inside and ended:
            begins[a + n] = start
            ends[a + n] = i - 1
            types[a + n] = ptype
            n += 1
            inside = False
        if ptype == other:
            begun = typ != other
        elif typ == other:
            begun = False
        elif typ != ptype or tag == t_begin or tag == t_single:
            begun = True
        elif tag == t_inside or tag == t_end:
            begun = ptag == t_end or ptag == t_single
        else:
            begun = False
        if begun:
            start = i
            inside = True
    if inside:
        begins[a + n] = start
        ends[a + n] = b - 1
        types[a + n] = typ
        n += 1
    return n


def chunk_match(a, n_inf, b_inf, e_inf, t_inf, n_lab, b_lab, e_lab, t_lab, excluded, counts, s):
    """counts[s] = (predicted chunks, true chunks, correct chunks), chunks of excluded types not counted."""
    i = 0
    j = 0
    correct = 0
    while i < n_inf and j < n_lab:
        p = a + i
        q = a + j
        if b_inf[p] == b_lab[q] and e_inf[p] == e_lab[q] and t_inf[p] == t_lab[q] and excluded[t_inf[p]] == 0:
            correct += 1
        if e_inf[p] < e_lab[q]:
            i += 1
        elif e_inf[p] > e_lab[q]:
            j += 1
        else:
            i += 1
            j += 1
    n_p = 0
    for i in range(n_inf):
        if excluded[t_inf[a + i]] == 0:
            n_p += 1
    n_l = 0
    for j in range(n_lab):
        if excluded[t_lab[a + j]] == 0:
            n_l += 1
    counts[s, 0] = n_p
    counts[s, 1] = n_l
    counts[s, 2] = correct


def levenshtein(hyp, ha, hb, ref, ra, rb, row, base):
    """The edit distance of hyp[ha:hb] and ref[ra:rb]; row[base:base + rb - ra + 1] is scratch."""
    m = rb - ra
    for j in range(m + 1):
        row[base + j] = j
    for i in range(1, hb - ha + 1):
        diag = row[base]
        row[base] = i
        for j in range(1, m + 1):
            up = row[base + j]
            best = diag + (0 if hyp[ha + i - 1] == ref[ra + j - 1] else 1)
            best = min(best, up + 1)
            best = min(best, row[base + j - 1] + 1)
            diag = up
            row[base + j] = best
    return row[base + m]


# -- host side: where the sequences are -----------------------------------------------------------


def lod_spans(ctx, slots, rows):
    """(starts, ends) of the sequences of the last LoD level of the first of ``slots`` that has one."""
    lods = ctx.lod
    lod = next((lods[s] for s in slots if lods.get(s)), None)
    if lod is None:
        raise PeError(
            f"input {slots[0]} has no LoD: feed a LoDTensor (fluid.create_lod_tensor), or pass "
            f"length= with padded [B, T, ...] input"
        )
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
        raise PeError(
            f"{what} holds tag ids outside [0, {num_tags}) (the emission width): "
            f"{int(inside.min())}..{int(inside.max())}"
        )


def crf_spans(x_shape, ctx, slots, length=None):
    """(starts, ends, rows): the sequences of a CRF input as rows of its [rows, D] view; padded
    [B, T, D] input with ``length`` (host values), else the LoD of the first of ``slots`` with one."""
    if length is not None:
        batch, steps = x_shape[:2]
        starts, ends = padded_spans(length, batch, steps)
        return starts, ends, batch * steps
    starts, ends = lod_spans(ctx, slots, x_shape[0])
    return starts, ends, x_shape[0]


def tag_rows(label, rows, what="Label"):
    """A label tensor as one int64 tag id per row of the emission's [rows, D] view."""
    label = np.asarray(label)
    if label.size != rows:
        raise PeError(f"{what} has {label.size} tag ids for {rows} emission steps; give one per step")
    return np.ascontiguousarray(label).reshape(rows).astype(np.int64, copy=False)


_SCHEMES = {"IOB": (2, 0, 1, -1, -1), "IOE": (2, -1, 0, 1, -1), "IOBES": (4, 0, 1, 2, 3), "plain": (1, -1, -1, -1, -1)}


def chunk_scheme(attrs):
    """(tag kinds, begin, inside, end, single tag kinds (-1: none), outside type, excluded mask [K + 1])."""
    kinds, tb, ti, te, ts = _SCHEMES[attrs["chunk_scheme"]]
    k = int(attrs["num_chunk_types"])
    excluded = np.zeros(k + 1, np.int8)
    for t in attrs.get("excluded_chunk_types") or ():
        if 0 <= t < k:
            excluded[t] = 1
    return kinds, tb, ti, te, ts, k, excluded


def seq_spans(ctx, slot, x_shape, length=None):
    """(starts, ends) of a sequence input: padded [B, T(, 1)] rows with ``length``, else its LoD."""
    if length is not None:
        return padded_spans(length, x_shape[0], x_shape[1])
    return lod_spans(ctx, (slot,), x_shape[0])


def check_chunk_tags(tags, starts, ends, top, what):
    inside = tags[span_mask(starts, ends, tags.shape[0])]
    if inside.size and (inside.min() < 0 or inside.max() > top):
        raise PeError(
            f"{what} holds tag ids outside [0, {top}] (num_chunk_types times the scheme's tag kinds; "
            f"{top} is 'outside'): {int(inside.min())}..{int(inside.max())}"
        )


def chunk_outputs(counts):
    """Precision, Recall, F1-Score (float32 [1]) and the three int64 [1] counts from per-sequence counts."""
    n_inf, n_lab, n_cor = (int(v) for v in counts.sum(axis=0)) if counts.size else (0, 0, 0)
    p = n_cor / n_inf if n_inf else 0.0
    r = n_cor / n_lab if n_lab else 0.0
    f1 = 2 * p * r / (p + r) if n_cor else 0.0
    f32 = lambda v: np.array([v], np.float32)  # noqa: E731
    i64 = lambda v: np.array([v], np.int64)  # noqa: E731
    return {
        "Precision": f32(p),
        "Recall": f32(r),
        "F1-Score": f32(f1),
        "NumInferChunks": i64(n_inf),
        "NumLabelChunks": i64(n_lab),
        "NumCorrectChunks": i64(n_cor),
    }


def _flat_ids(x):
    return np.ascontiguousarray(x).reshape(-1).astype(np.int64, copy=False)


def chunk_prep(inference, label, attrs, ctx, seq_length=None):
    """Host values of chunk_eval's inputs -> (inference, label as flat int64, starts, ends,
    scheme [kinds, begin, inside, end, single, outside type], excluded mask), checked."""
    inf, lab = _flat_ids(inference), _flat_ids(label)
    if inf.size != lab.size:
        raise PeError(f"Inference has {inf.size} tags and Label {lab.size}; they must tag the same steps")
    lods = ctx.lod
    if (
        seq_length is None
        and lods.get("Inference")
        and lods.get("Label")
        and list(lods["Inference"][-1]) != list(lods["Label"][-1])
    ):
        raise PeError("Inference and Label have different LoDs; they must tag the same sequences")
    starts, ends = seq_spans(ctx, "Label", np.shape(label), seq_length)
    kinds, tb, ti, te, ts, k, excluded = chunk_scheme(attrs)
    check_chunk_tags(inf, starts, ends, k * kinds, "Inference")
    check_chunk_tags(lab, starts, ends, k * kinds, "Label")
    return inf, lab, starts, ends, np.array([kinds, tb, ti, te, ts, k], np.int64), excluded


def edit_prep(hyps, refs, attrs, ctx, hyps_length=None, refs_length=None):
    """Host values of edit_distance's inputs -> (hyps, refs flat int64, hyp starts, ends, ref
    starts, ends, scratch bases, scratch size)."""
    hs, he = seq_spans(ctx, "Hyps", np.shape(hyps), hyps_length)
    rs, re = seq_spans(ctx, "Refs", np.shape(refs), refs_length)
    if hs.size != rs.size:
        raise PeError(f"Hyps has {hs.size} sequences and Refs {rs.size}; edit_distance compares them in pairs")
    if attrs.get("normalized") and np.any(re == rs):
        k = int(np.flatnonzero(re == rs)[0])
        raise PeError(
            f"reference #{k} is empty: normalized=True divides by the reference's length; "
            f"drop empty references or use normalized=False"
        )
    sizes = re - rs + 1
    bases = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return _flat_ids(hyps), _flat_ids(refs), hs, he, rs, re, bases[:-1], int(bases[-1])


def edit_outputs(dist, rs, re, normalized):
    out = dist.astype(np.float64)
    if normalized and out.size:
        out = out / (re - rs)
    return {"Out": out.astype(np.float32).reshape(-1, 1), "SequenceNum": np.array([dist.size], np.int64)}


def erase(x, attrs, ctx):
    """sequence_erase on host values: (Out, its LoD)."""
    lod = ctx.lod.get("X")
    starts, ends = lod_spans(ctx, ("X",), np.shape(x)[0])
    keep = ~np.isin(np.asarray(x).reshape(np.shape(x)[0], -1)[:, 0], np.asarray(attrs["tokens"], np.int64))
    kept = np.concatenate([[0], np.cumsum(keep)])
    last = [int(v) for v in kept[np.concatenate([starts, ends[-1:]])]] if starts.size else [0]
    return np.asarray(x)[keep], [list(level) for level in lod[:-1]] + [last]
