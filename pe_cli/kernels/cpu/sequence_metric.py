"""CPU kernels of the sequence metric ops (ops/sequence_metric.py): the checks and spans on the host
(kernels/seq_dp.py), the per-sequence programs in numba (cpu/_seq_metric_loops.py); out-kernels of ``fresh``
variants (shapes/sequence_metric.py) that hand over the results they make."""

import numpy as np

from ..seq_dp import chunk_outputs, chunk_prep, edit_outputs, edit_prep
from ..structured import fresh_outputs
from .runtime.loops import lazy

_loops = lazy("_seq_metric_loops")


def chunk_eval(ins, outs, attrs, meta, ctx):
    inf, lab, starts, ends, scheme, excluded = chunk_prep(
        ins["Inference"], ins["Label"], attrs, ctx, ins.get("SeqLength")
    )
    segs = np.zeros((6, inf.size), np.int64)
    counts = np.zeros((starts.size, 3), np.int64)
    _loops().chunk_counts(inf, lab, starts, ends, scheme, excluded, segs, counts)
    fresh_outputs(chunk_outputs(counts), ins, outs, meta)


chunk_eval.takes_context = True


def edit_distance(ins, outs, attrs, meta, ctx):
    hyp, ref, hs, he, rs, re, bases, size = edit_prep(
        ins["Hyps"], ins["Refs"], attrs, ctx, ins.get("HypsLength"), ins.get("RefsLength")
    )
    dist = np.zeros(hs.size, np.int64)
    _loops().edit_distances(hyp, hs, he, ref, rs, re, bases, np.zeros(size, np.int64), dist)
    fresh_outputs(edit_outputs(dist, rs, re, attrs["normalized"]), ins, outs, meta)


edit_distance.takes_context = True
