"""CPU out-kernels (meta rules: shapes/beam_search.py) of beam_search and beam_search_decode (pe_cli/ops/beam_search.py), on
the host, and of
beam_log_probs: float32 rows in _softmax_rows_loops (the numbers of log_softmax's loop and the add's),
other dtypes through log_softmax's kernel and numpy."""

import numpy as np

from ...base.errors import PeError
from ...shapes import beam_search as rules
from ..structured import adapter, fresh_outputs
from .activation import log_softmax
from .runtime.loops import lazy, run_in_parts

_rows = lazy("_softmax_rows_loops")


def _host(x):
    return x.copy_to_host() if hasattr(x, "copy_to_host") else np.asarray(x)


def _absolute(lod, level):
    """Level ``level``'s offsets in rows of the tensor (Fluid's ToAbsOffset)."""
    offsets = list(lod[level])
    for deeper in lod[level + 1 :]:
        offsets = [deeper[o] for o in offsets]
    return offsets


def _candidates(rows, pre_ids, pre_scores, ids, scores, attrs):
    out = []
    for row in rows:
        if pre_ids[row] == attrs["end_id"]:  # a finished branch offers only its end
            out.append((float(pre_scores[row]), row, attrs["end_id"]))
            continue
        for d in range(scores.shape[1]):
            score = scores[row, d] if attrs["is_accumulated"] else pre_scores[row] + np.log(scores[row, d])
            out.append((float(score), row, int(ids[row, d])))
    return sorted(out, key=lambda c: (c[0], c[1]), reverse=True)[: attrs["beam_size"]]


def beam_search_out(ins, outs, attrs, meta, ctx):
    lod = ctx.lod.get("scores")
    if not lod or len(lod) <= attrs["level"]:
        raise PeError(f"beam_search: scores need a LoD with level {attrs['level']} (sources over prefixes)")
    high = _absolute(lod, attrs["level"])
    pre_ids, pre_scores = _host(ins["pre_ids"]).reshape(-1), _host(ins["pre_scores"]).reshape(-1)
    scores = _host(ins["scores"])
    scores = scores.reshape(len(scores), -1)
    ids = (
        _host(ins["ids"]).reshape(scores.shape)
        if ins.get("ids") is not None
        else np.tile(np.arange(scores.shape[1]), (len(scores), 1))
    )
    per_row = [[] for _ in range(high[-1])]
    for s in range(len(high) - 1):
        rows = range(high[s], high[s + 1])
        chosen = _candidates(rows, pre_ids, pre_scores, ids, scores, attrs)
        if chosen and all(i == attrs["end_id"] and pre_ids[r] == attrs["end_id"] for _, r, i in chosen):
            continue  # every branch ended: the source is pruned
        for score, row, i in chosen:
            per_row[row].append((i, score))
    low = np.concatenate([[0], np.cumsum([len(items) for items in per_row])]).astype(int).tolist()
    flat = [item for items in per_row for item in items]
    parents = [row for row, items in enumerate(per_row) for _ in items]
    out_lod = [list(high), low]
    ctx.set_lod_map({"selected_ids": out_lod, "selected_scores": out_lod})
    results = {
        "selected_ids": np.array([[i] for i, _ in flat], dtype=np.int64).reshape(-1, 1),
        "selected_scores": np.array([[s] for _, s in flat], dtype=scores.dtype).reshape(-1, 1),
        "parent_idx": np.array(parents, dtype=np.int32),
    }
    fresh_outputs(results, ins, outs, meta)


def beam_search_decode_out(ins, outs, attrs, meta, ctx):
    step_ids, step_scores, end_id = ins["Ids"], ins["Scores"], attrs["end_id"]
    lods = getattr(step_ids, "lods", None)
    if not len(step_ids) or lods is None or any(not lod or len(lod) < 2 for lod in lods):
        raise PeError("beam_search_decode: Ids must be an array of beam_search's selected_ids (2-level LoD)")
    sources = len(lods[0][0]) - 1
    sentences = [[] for _ in range(sources)]  # per source: [word ids], [scores], current candidate row
    for t in range(len(step_ids) - 1, -1, -1):
        ids, scores = _host(step_ids[t]).reshape(-1), _host(step_scores[t]).reshape(-1)
        src_level, sent_level = lods[t][0], lods[t][1]
        for s in range(sources):
            if not sentences[s]:  # the last step of this source: one sentence per candidate
                for prefix in range(src_level[s], src_level[s + 1]):
                    for cand in range(sent_level[prefix], sent_level[prefix + 1]):
                        sentences[s].append([[int(ids[cand])], [scores[cand]], prefix])
                continue
            for sentence in sentences[s]:
                cand = sentence[2]
                if ids[cand] != end_id or not sentence[0]:  # one end token, not the repeated ones
                    sentence[0].append(int(ids[cand]))
                    sentence[1].append(scores[cand])
                sentence[2] = int(np.searchsorted(sent_level, cand, side="right") - 1)
    words, values, src_lod, sent_lod = [], [], [0], [0]
    for group in sentences:
        group.sort(key=lambda sentence: sentence[1][0], reverse=True)  # best last score first
        for word_ids, word_scores, _ in group:
            words += word_ids[::-1]
            values += word_scores[::-1]
            sent_lod.append(sent_lod[-1] + len(word_ids))
        src_lod.append(src_lod[-1] + len(group))
    dtype = _host(step_scores[0]).dtype
    lod = [src_lod, sent_lod]
    ctx.set_lod_map({"SentenceIds": lod, "SentenceScores": lod})
    results = {"SentenceIds": np.array(words, dtype=np.int64), "SentenceScores": np.array(values, dtype=dtype)}
    fresh_outputs(results, ins, outs, meta)


def gather_tree(ins, outs, attrs, meta):
    ids, parents = _host(ins["Ids"]), _host(ins["Parents"])
    beam = ids.shape[2]
    if parents.size and (parents.min() < 0 or parents.max() >= beam):
        raise PeError(f"gather_tree: Parents holds {parents.min()}..{parents.max()}, outside the beams 0..{beam - 1}")
    out = np.empty_like(ids)
    if ids.shape[0] == 0:
        fresh_outputs({"Out": out}, ins, outs, meta)
        return
    out[-1] = ids[-1]
    parent = parents[-1]
    for t in range(ids.shape[0] - 2, -1, -1):  # vectorized over (batch, beam)
        out[t] = np.take_along_axis(ids[t], parent, axis=1)
        parent = np.take_along_axis(parents[t], parent, axis=1)
    fresh_outputs({"Out": out}, ins, outs, meta)


def sampling_id_out(ins, outs, attrs, meta, ctx):
    x = _host(ins["X"])
    r = ctx.rng.uniform(attrs["min"], attrs["max"], size=len(x))
    above = np.cumsum(x, axis=1) > r[:, None]
    ids = np.where(above.any(axis=1), above.argmax(axis=1), x.shape[1] - 1)
    fresh_outputs({"Out": ids.astype(np.int64)}, ins, outs, meta)


def beam_log_probs_out(ins, outs, attrs, meta):
    logits, finished, noend, pre = ins["Logits"], ins["Finished"], ins["NoEnd"], ins["PreScores"]
    if meta.variant == "rows":  # (float32 values: the loop writes Out's rows)
        vocab = logits.shape[-1]
        out = outs["Out"]
        args = (
            np.ascontiguousarray(logits).reshape(-1, vocab),
            np.ascontiguousarray(finished).reshape(-1),
            np.ascontiguousarray(noend),
            np.ascontiguousarray(pre).reshape(-1),
            out.reshape(-1, vocab),
        )
        run_in_parts(_rows(), "beam_log_probs", logits.size, *args)
        return
    scores = np.where(finished[..., None], noend, log_softmax({"X": logits}, {"axis": -1})["Out"])
    fresh_outputs({"Out": (scores + pre[..., None]).astype(logits.dtype, copy=False)}, ins, outs, meta)


# (beam_search's and beam_search_decode's LoDs they set, sampling_id's Generator)
beam_search_out.takes_context = beam_search_decode_out.takes_context = sampling_id_out.takes_context = True

# the kernels by name CUDA's kernels are given (kernels/cuda/beam_search.py's HOST_OPS): the adapters
beam_search = adapter(rules.beam_search_meta, beam_search_out, "beam_search")
beam_search_decode = adapter(rules.beam_search_decode_meta, beam_search_decode_out, "beam_search_decode")
sampling_id = adapter(rules.sampling_id_meta, sampling_id_out, "sampling_id")
beam_log_probs = adapter(rules.beam_log_probs_meta, beam_log_probs_out, "beam_log_probs")  # (its loops' tests call it)
