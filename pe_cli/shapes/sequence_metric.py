"""Meta rules of the sequence metric ops (ops/sequence_metric.py): chunk_eval's six outputs of one value each and
edit_distance's one row per sequence pair. Both are ``fresh`` variants: their checks read the tags' values (and the
lengths of a padded input), so the out-kernels (kernels/cpu/sequence_metric.py) make and hand over their results."""

import numpy as np

from .structured import Meta

CHUNK_OUTPUTS = {
    "Precision": np.float32,
    "Recall": np.float32,
    "F1-Score": np.float32,
    "NumInferChunks": np.int64,
    "NumLabelChunks": np.int64,
    "NumCorrectChunks": np.int64,
}


def chunk_eval_meta(attrs, ins, facts):
    """chunk_eval: Precision, Recall, F1-Score (float32 [1]) and the three chunk counts (int64 [1])."""
    return Meta({slot: ((1,), np.dtype(dtype)) for slot, dtype in CHUNK_OUTPUTS.items()}, "counts", fresh=True)


def edit_distance_meta(attrs, ins, facts):
    """edit_distance: Out (float32 [pairs, 1], the pairs the LoD or the lengths give) and SequenceNum (int64 [1])."""
    outputs = {"Out": ((-1, 1), np.dtype(np.float32)), "SequenceNum": ((1,), np.dtype(np.int64))}
    return Meta(outputs, "distances", fresh=True)
