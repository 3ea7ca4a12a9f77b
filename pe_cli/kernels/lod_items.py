"""The elements of one LoD level as row spans with their own LoD, as Fluid's
GetSubLoDAndAbsoluteOffset gives them: what the rank-table ops (lod_tensor_to_array,
array_to_lod_tensor, shrink_rnn_memory, reorder_lod_tensor_by_rank) and DynamicRNN move around.

A LoD is offsets per level; "unit level" u counts the entries of level u (u = 0: the top-level
sequences, u = len(lod): rows). Element i of unit level u spans rows [start, end) and carries the
levels below it, re-based to 0."""

import numpy as np


def span(lod, unit, i):
    """(start row, end row, sub-LoD offsets) of element ``i`` of unit level ``unit``."""
    start, end, sub = i, i + 1, []
    for offs in lod[unit:]:
        sub.append([int(o) - int(offs[start]) for o in offs[start : end + 1]])
        start, end = int(offs[start]), int(offs[end])
    return start, end, sub


def join(subs, levels):
    """The LoD of elements put one after the other (their sub-LoDs joined), ``levels`` deep."""
    out = [[0] for _ in range(levels)]
    for sub in subs:
        for k, offs in enumerate(sub):
            base = out[k][-1]
            out[k].extend(base + o for o in offs[1:])
    return out


def rows_of(lod, unit, indices):
    """The rows of elements ``indices`` of unit level ``unit`` (rows themselves when x has no such
    level), one element after the other."""
    if not lod or unit >= len(lod):
        return np.asarray(indices, dtype=np.int64).reshape(-1)
    spans = [span(lod, unit, int(i)) for i in indices]
    return np.concatenate([np.arange(s, e, dtype=np.int64) for s, e, _ in spans] + [np.zeros(0, np.int64)])


def gather(x, lod, unit, indices):
    """x's elements ``indices`` of unit level ``unit``, one after the other: (rows, their LoD or None)."""
    if not lod or unit >= len(lod):
        return x[rows_of(lod, unit, indices)], None
    subs = [span(lod, unit, int(i))[2] for i in indices]
    return x[rows_of(lod, unit, indices)], join(subs, len(lod) - unit)
