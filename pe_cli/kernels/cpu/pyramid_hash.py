"""Kernels of ops/pyramid_hash.py: the n-grams of each sequence (their layout: shapes/pyramid_hash.py, decided by
pyramid_hash's meta rule once per LoD) hashed with XXH32 (kernels/cpu/hashing.py) a group of equal-length n-grams at a
time. Structured kernels: the "rows" out-kernels write Out, DropPos, X_Temp_Out and W@GRAD into the buffers they are
handed (Out's LoD set on the call's context); the kernels by name are the rules and out-kernels through
kernels/structured.adapter."""

import numpy as np

from ...shapes.pyramid_hash import layout, pyramid_hash_grad_meta, pyramid_hash_meta
from ..structured import adapter
from .hashing import xxh32


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


def _pyramid_hash(ins, outs, attrs, meta, ctx):
    grams, keep, rows, lod = meta.args
    w, out, ids = np.asarray(ins["W"]), outs["Out"], outs["X_Temp_Out"].reshape(-1)
    np.copyto(ids, np.asarray(ins["X"]).reshape(-1), casting="unsafe")  # (the ids as float32)
    outs["DropPos"].reshape(-1)[...] = keep
    used = rows >= 0
    pos = _positions(ids, [grams[k] for k in rows[used]], attrs)
    rl = attrs["rand_len"]
    out[...] = 0
    if used.any():
        out[used] = w[pos[:, :, None] + np.arange(rl), 0].reshape(len(pos), -1)
    if not attrs["is_training"]:
        out *= w.dtype.type(attrs["drop_out_percent"])
    ctx.set_lod_map({"Out": [lod]})


def _pyramid_hash_grad(ins, outs, attrs, meta, ctx):
    x, w, dout = ins["X"], np.asarray(ins["W"]), np.asarray(ins["Out@GRAD"])
    grams, _, rows, _ = layout(ctx.lod.get("X"), len(x), attrs, ins["DropPos"])
    ids = np.asarray(x).reshape(-1).astype(np.float32)
    used = rows >= 0
    pos = _positions(ids, [grams[k] for k in rows[used]], attrs)
    rl, dw = attrs["rand_len"], outs["W@GRAD"].reshape(-1)
    dw[...] = 0
    g = dout[used].reshape(len(pos), pos.shape[1], rl)
    if not attrs["is_training"]:
        g = g * w.dtype.type(attrs["drop_out_percent"])
    np.add.at(dw, pos[:, :, None] + np.arange(rl), g)


_pyramid_hash.takes_context = _pyramid_hash_grad.takes_context = True  # (the LoD: Out's set, X's read)
PYRAMID_HASH, PYRAMID_HASH_GRAD = _pyramid_hash, _pyramid_hash_grad
pyramid_hash = adapter(pyramid_hash_meta, PYRAMID_HASH, "pyramid_hash")
pyramid_hash_grad = adapter(pyramid_hash_grad_meta, PYRAMID_HASH_GRAD, "pyramid_hash_grad")
