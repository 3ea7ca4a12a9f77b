"""viterbi_decode's kernel (numpy): dynamic programming over each sequence's steps, ties to the first tag; the
start tag is the last one, the stop tag the one before it (Paddle's ViterbiDecoder). The out-kernel of
shapes/structured_prediction.py's viterbi_decode_meta (fresh)."""

import numpy as np

from ...shapes.structured_prediction import viterbi_decode_meta
from ..structured import adapter, fresh_kernel


def _viterbi_decode(ins, attrs):
    x, trans = ins["Input"], ins["Transition"]
    lengths = np.asarray(ins["Length"]).reshape(-1).astype(np.int64)
    b, _, tags = x.shape
    bos = attrs["include_bos_eos_tag"]
    width = int(lengths.max()) if lengths.size else 0
    scores, path = np.zeros(b, x.dtype), np.zeros((b, width), np.int64)
    for i in range(b):
        n = int(lengths[i])
        if n <= 0:
            continue
        if bos:  # from the start tag (the last; every other at -1e4) through a transition into step 0
            init = np.full(tags, -1e4, x.dtype)
            init[-1] = 0
            alpha = (init[:, None] + trans).max(axis=0) + x[i, 0]
        else:
            alpha = x[i, 0]
        back = []
        for t in range(1, n):
            total = alpha[:, None] + trans
            back.append(np.argmax(total, axis=0))
            alpha = total.max(axis=0) + x[i, t]
        if bos:  # to the stop tag (the one before the last): its row, as Paddle adds it
            alpha = alpha + trans[tags - 2]
        last = int(np.argmax(alpha))
        scores[i] = alpha[last]
        seq = [last]
        for ptr in reversed(back):
            seq.append(int(ptr[seq[-1]]))
        path[i, :n] = seq[::-1]
    return {"Scores": scores, "Path": path}


VITERBI_DECODE = fresh_kernel(_viterbi_decode, "viterbi_decode_out")
viterbi_decode = adapter(viterbi_decode_meta, VITERBI_DECODE, "viterbi_decode")  # (CUDA's host fallback)
