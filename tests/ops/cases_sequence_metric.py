"""Op cases for chunk_eval and edit_distance. chunk_eval's expected counts come from
how the tags are made: chunks are drawn first (some in both the prediction and the truth, some in one
only, some with another type or a shorter end), then written as tags by each scheme's documented
encoding; edit_distance's reference is the textbook recursive definition."""

import functools

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(5)
KINDS = {"IOB": 2, "IOE": 2, "IOBES": 4, "plain": 1}


def encode(tags, chunks, scheme, k):
    """Writes chunks (type, begin, end inclusive) into tags by the scheme (tag = type * kinds + kind)."""
    n = KINDS[scheme]
    for t, a, b in chunks:
        base = t * n
        if scheme == "plain":
            tags[a : b + 1] = base
        elif scheme == "IOB":
            tags[a], tags[a + 1 : b + 1] = base, base + 1
        elif scheme == "IOE":
            tags[a:b], tags[b] = base, base + 1
        elif a == b:
            tags[a] = base + 3  # IOBES single
        else:
            tags[a], tags[a + 1 : b], tags[b] = base, base + 1, base + 2


def chunk_case_data(lengths, scheme, k, excluded=(), seed=0):
    """(inference tags, label tags, expected counts) over sequences of these lengths."""
    r = np.random.default_rng(seed)
    outside = k * KINDS[scheme]
    inf = np.full(sum(lengths), outside, np.int64)
    lab = inf.copy()
    p_chunks, l_chunks, correct = [], [], 0
    start = 0
    for n in lengths:
        pos = start
        while pos < start + n:
            pos += int(r.integers(1 if scheme == "plain" else 0, 3))  # plain needs a gap between chunks
            end = min(pos + int(r.integers(0, 3)), start + n - 1)
            if pos > end:
                break
            t, kind = int(r.integers(0, k)), r.choice(["both", "pred", "true", "type", "end"])
            if kind == "end" and end == pos:
                kind = "both"
            if kind in ("both", "pred", "type", "end"):
                p_chunks.append((t, pos, end))
            if kind in ("both", "true"):
                l_chunks.append((t, pos, end))
            if kind == "type":
                l_chunks.append(((t + 1) % k, pos, end))
            if kind == "end":
                l_chunks.append((t, pos, end - 1))
            correct += kind == "both" and t not in excluded
            pos = end + 1
        start += n
    encode(inf, p_chunks, scheme, k)
    encode(lab, l_chunks, scheme, k)
    counts = (sum(c[0] not in excluded for c in p_chunks), sum(c[0] not in excluded for c in l_chunks), correct)
    return inf, lab, counts


def chunk_ref_for(counts):
    def ref(i, a):
        n_inf, n_lab, n_cor = counts
        p = n_cor / n_inf if n_inf else 0.0
        r = n_cor / n_lab if n_lab else 0.0
        f1 = 2 * p * r / (p + r) if n_cor else 0.0
        return {
            "Precision": np.float32([p]),
            "Recall": np.float32([r]),
            "F1-Score": np.float32([f1]),
            "NumInferChunks": np.int64([n_inf]),
            "NumLabelChunks": np.int64([n_lab]),
            "NumCorrectChunks": np.int64([n_cor]),
        }

    return ref


def lod(values, lengths):
    return LoDTensor(np.asarray(values).reshape(-1, 1), [[0] + [int(v) for v in np.cumsum(lengths)]])


def pad(values, lengths, fill=-1):
    out = np.full((len(lengths), max(lengths)), fill, np.int64)
    for k, (a, n) in enumerate(zip(np.cumsum([0] + lengths[:-1]), lengths)):
        out[k, :n] = values[a : a + n]
    return out


def chunk_case(scheme, k, lengths, excluded=(), padded=False, seed=0):
    inf, lab, counts = chunk_case_data(lengths, scheme, k, excluded, seed)
    attrs = {"chunk_scheme": scheme, "num_chunk_types": k, "excluded_chunk_types": list(excluded)}
    if padded:
        inputs = {
            "Inference": pad(inf, lengths).reshape(len(lengths), -1, 1),
            "Label": pad(lab, lengths),
            "SeqLength": np.array(lengths, np.int64),
        }
    else:
        inputs = {"Inference": lod(inf, lengths), "Label": lod(lab, lengths)}
    name = f"chunk_eval_{scheme}" + ("_excluded" if excluded else "") + ("_padded" if padded else "")
    return OpCase("chunk_eval", inputs, chunk_ref_for(counts), attrs=attrs, name=name)


def levenshtein(h, r):
    @functools.lru_cache(maxsize=None)
    def d(i, j):
        if i == 0 or j == 0:
            return i + j
        return min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (h[i - 1] != r[j - 1]))

    return d(len(h), len(r))


def _seqs(slot, i):
    """The token sequences of input ``slot``: from its LoD, or padded rows cut at ``slot + 'Length'``."""
    x = np.asarray(i[slot])
    if slot + "Length" in i:
        return [row[:n] for row, n in zip(x.reshape(x.shape[0], -1), i[slot + "Length"])]
    offs = i[slot].lod()[-1]
    return [x.reshape(-1)[a:b] for a, b in zip(offs, offs[1:])]


def edit_ref(i, a):
    hyps, refs = _seqs("Hyps", i), _seqs("Refs", i)
    d = np.array(
        [levenshtein(tuple(h), tuple(r)) / (len(r) if a["normalized"] else 1) for h, r in zip(hyps, refs)], np.float32
    )
    return {"Out": d.reshape(-1, 1), "SequenceNum": np.int64([len(hyps)])}


H_LEN, R_LEN = [3, 0, 4, 2, 5], [2, 3, 0, 2, 4]
HYPS, REFS = rng.integers(0, 4, sum(H_LEN)), rng.integers(0, 4, sum(R_LEN))
R_FULL = [2, 3, 1, 2, 4]
REFS_FULL = rng.integers(0, 4, sum(R_FULL))

CASES = [
    chunk_case("IOB", 3, [7, 12, 1, 9], seed=1),
    chunk_case("IOE", 3, [10, 5, 11], excluded=(1,), seed=2),
    chunk_case("IOBES", 2, [9, 13, 4], seed=3),
    chunk_case("plain", 4, [8, 12, 6], seed=4),
    chunk_case("IOB", 2, [6, 9, 3], padded=True, seed=5),
    OpCase(
        "edit_distance",
        {"Hyps": lod(HYPS, H_LEN), "Refs": lod(REFS, R_LEN)},
        edit_ref,
        name="edit_distance_empty_sequences",
    ),
    OpCase(
        "edit_distance",
        {"Hyps": lod(HYPS, H_LEN), "Refs": lod(REFS_FULL, R_FULL)},
        edit_ref,
        attrs={"normalized": True},
        name="edit_distance_normalized",
    ),
    OpCase(
        "edit_distance",
        {
            "Hyps": pad(HYPS, H_LEN),
            "Refs": pad(REFS_FULL, R_FULL),
            "HypsLength": np.array(H_LEN, np.int64),
            "RefsLength": np.array(R_FULL, np.int64),
        },
        edit_ref,
        attrs={"normalized": True},
        name="edit_distance_padded",
    ),
]
