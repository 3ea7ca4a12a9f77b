"""The meta rules (shapes/structured.py) of pyramid_hash and pyramid_hash_grad (ops/pyramid_hash.py; out-kernels:
kernels/cpu/pyramid_hash.py), and the layout both read: the n-grams of each sequence in Fluid's order and which of
them are kept. pyramid_hash's rule reads the call's LoD (``facts.lod``; the op ``needs_lod``, its Meta kept per LoD)
and decides the layout once, the draws being rand_r's from the ``seed`` attribute: Out [kept n-grams, one row of
zeros for a sequence that keeps none; num_emb] in W's dtype, DropPos [n-grams, 1] int32, X_Temp_Out [ids, 1] float32,
the layout in ``Meta.args``. pyramid_hash_grad's W@GRAD has W's shape and dtype (its layout is DropPos's values,
read by the out-kernel). Variant "rows": the out-kernels write into the buffers they are handed."""

import numpy as np

from .sequence import lod_offsets
from .structured import Meta

_RAND_MAX = 2147483647


def _rand_r(state):
    """glibc's rand_r: (value, next state), three steps of its LCG combined into 31 bits."""
    out = 0
    for bits in (11, 10, 10):
        state = (state * 1103515245 + 12345) & 0xFFFFFFFF
        out = (out << bits) ^ ((state >> 16) % (1 << bits))
    return out, state


def _ngrams(offs, pyramid_layer):
    """(sequence, first row, length) of every n-gram, in the order Fluid's kernel visits them."""
    grams = []
    for i in range(len(offs) - 1):
        w = int(offs[i + 1] - offs[i])
        for n in range(2, min(pyramid_layer, w) + 1):
            grams += [(i, int(offs[i]) + s, n) for s in range(w - n + 1)]
    return grams


def _keep(grams, attrs):
    if not attrs["is_training"]:
        return np.ones(len(grams), np.int32)
    state, keep = attrs["seed"] & 0xFFFFFFFF, np.empty(len(grams), np.int32)
    for g in range(len(grams)):
        value, state = _rand_r(state)
        keep[g] = 0 if np.float32(value) / np.float32(_RAND_MAX) < np.float32(attrs["drop_out_percent"]) else 1
    return keep


def layout(lod, rows, attrs, keep=None):
    """(the n-grams, their keep flags: drawn, or ``keep``'s values, each Out row's n-gram index or -1, Out's LoD) of
    X's ``rows`` ids under the LoD ``lod``."""
    offs = lod_offsets(lod, "X", rows)
    grams = _ngrams(offs, attrs["pyramid_layer"])
    keep = _keep(grams, attrs) if keep is None else np.asarray(keep).reshape(-1)
    out_rows, out_lod = [], [0]
    for i in range(len(offs) - 1):
        mine = [k for k, g in enumerate(grams) if g[0] == i and keep[k]]
        out_rows += mine or [-1]
        out_lod.append(len(out_rows))
    return grams, keep, np.array(out_rows, np.int64), out_lod


def pyramid_hash_meta(attrs, ins, facts):
    x, w = ins["X"], ins["W"]
    grams, keep, rows, lod = layout(facts.lod.get("X"), x.shape[0], attrs)
    outputs = {
        "Out": ((len(rows), attrs["num_emb"]), np.dtype(w.dtype)),
        "DropPos": ((len(grams), 1), np.dtype(np.int32)),
        "X_Temp_Out": ((int(np.prod(x.shape)), 1), np.dtype(np.float32)),
    }
    return Meta(outputs, "rows", args=(grams, keep, rows, lod))


def pyramid_hash_grad_meta(attrs, ins, facts):
    w = ins["W"]
    return Meta({"W@GRAD": (tuple(w.shape), np.dtype(w.dtype))}, "rows")
