"""The meta rules of the beam search ops (ops/beam_search.py): beam_search, beam_search_decode, gather_tree,
beam_log_probs and sampling_id. beam_search's and beam_search_decode's lengths are the values' (-1: the arrays'
own, their LoD the out-kernel's), as are their out-kernels' arrays (``fresh`` variants,
kernels/structured.fresh_outputs); beam_log_probs in float32 is a loop over rows writing into the buffer it is
handed, else a numpy form."""

import numpy as np

from .structured import Meta

_INT64 = np.dtype(np.int64)


def _fresh(outputs):
    return Meta(outputs, "fresh", fresh=True)


def beam_search_meta(attrs, ins, facts):
    """beam_search: selected_ids (int64) and selected_scores (scores' dtype) [selected, 1], parent_idx (int32)."""
    dtype = np.dtype(ins["scores"].dtype)
    outputs = {"selected_ids": ((-1, 1), _INT64), "selected_scores": ((-1, 1), dtype)}
    return _fresh({**outputs, "parent_idx": ((-1,), np.dtype(np.int32))})


def beam_search_decode_meta(attrs, ins, facts):
    """beam_search_decode: SentenceIds (int64) and SentenceScores (the steps' scores' dtype), a word each."""
    scores = ins["Scores"]
    dtype = np.dtype(np.asarray(scores[0]).dtype if len(scores) else np.float32)  # (none: the kernel refuses)
    return _fresh({"SentenceIds": ((-1,), _INT64), "SentenceScores": ((-1,), dtype)})


def gather_tree_meta(attrs, ins, facts):
    """gather_tree: Out of Ids' shape and dtype."""
    ids = ins["Ids"]
    return _fresh({"Out": (tuple(ids.shape), np.dtype(ids.dtype))})


def sampling_id_meta(attrs, ins, facts):
    """sampling_id: Out (int64), an id per row of X."""
    return _fresh({"Out": ((ins["X"].shape[0],), _INT64)})


def beam_log_probs_meta(attrs, ins, facts):
    """beam_log_probs: Out of Logits' shape and dtype; float32 values the loop over rows ("rows"), else numpy's."""
    logits = ins["Logits"]
    spec = {"Out": (tuple(logits.shape), np.dtype(logits.dtype))}
    size = int(np.prod(logits.shape, dtype=np.int64))
    return Meta(spec, "rows") if logits.dtype == np.float32 and size else _fresh(spec)
