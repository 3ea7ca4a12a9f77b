"""Kernels of ops/pyramid_hash.py: the n-grams of each sequence listed in Fluid's order, hashed with
XXH32 (kernels/cpu/hashing.py) a group of equal-length n-grams at a time."""

import numpy as np

from ..common import seq_offsets
from .hashing import xxh32

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


def _positions(ids, kept, attrs):
    """[kept n-grams, num_emb / rand_len] window starts in W of the kept n-grams."""
    pos = np.zeros((len(kept), attrs["num_emb"] // attrs["rand_len"]), np.int64)
    for n in {g[2] for g in kept}:
        at = np.array([k for k, g in enumerate(kept) if g[2] == n])
        rows = ids[np.array([kept[k][1] for k in at])[:, None] + np.arange(n)]
        rows = np.ascontiguousarray(rows).view(np.uint8).reshape(len(at), 4 * n)
        for c in range(pos.shape[1]):
            pos[at, c] = (xxh32(rows, c * attrs["rand_len"]) % np.uint64(attrs["space_len"])).astype(np.int64)
    return pos


def _layout(ins, attrs, ctx, keep=None):
    """(ids as float32, the n-grams, their keep flags, each Out row's n-gram index or -1, Out's LoD)."""
    offs = seq_offsets(ctx, "X", len(ins["X"]))
    ids = np.asarray(ins["X"]).reshape(-1).astype(np.float32)
    grams = _ngrams(offs, attrs["pyramid_layer"])
    keep = _keep(grams, attrs) if keep is None else np.asarray(keep).reshape(-1)
    rows, lod = [], [0]
    for i in range(len(offs) - 1):
        mine = [k for k, g in enumerate(grams) if g[0] == i and keep[k]]
        rows += mine or [-1]
        lod.append(len(rows))
    return ids, grams, keep, np.array(rows, np.int64), lod


def pyramid_hash(ins, attrs, ctx):
    w = np.asarray(ins["W"])
    ids, grams, keep, rows, lod = _layout(ins, attrs, ctx)
    used = rows >= 0
    pos = _positions(ids, [grams[k] for k in rows[used]], attrs)
    rl = attrs["rand_len"]
    out = np.zeros((len(rows), attrs["num_emb"]), w.dtype)
    if used.any():
        out[used] = w[pos[:, :, None] + np.arange(rl), 0].reshape(len(pos), -1)
    if not attrs["is_training"]:
        out *= w.dtype.type(attrs["drop_out_percent"])
    ctx.set_lod_map({"Out": [lod]})
    return {"Out": out, "DropPos": keep.reshape(-1, 1), "X_Temp_Out": ids.reshape(-1, 1)}


def pyramid_hash_grad(ins, attrs, ctx):
    w, dout = np.asarray(ins["W"]), np.asarray(ins["Out@GRAD"])
    ids, grams, _, rows, _ = _layout(ins, attrs, ctx, ins["DropPos"])
    used = rows >= 0
    pos = _positions(ids, [grams[k] for k in rows[used]], attrs)
    rl, dw = attrs["rand_len"], np.zeros(w.shape[0], w.dtype)
    g = dout[used].reshape(len(pos), pos.shape[1], rl)
    if not attrs["is_training"]:
        g = g * w.dtype.type(attrs["drop_out_percent"])
    np.add.at(dw, pos[:, :, None] + np.arange(rl), g)
    return {"W@GRAD": dw.reshape(w.shape)}
