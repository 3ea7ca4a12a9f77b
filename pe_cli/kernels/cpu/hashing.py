"""Kernel of ops/hashing.py: XXH64 (the xxHash 64-bit algorithm, as Fluid links it) over each row's
bytes, vectorized over the rows with numpy's wrapping uint64 arithmetic; XXH32 (its 32-bit sibling,
which pyramid_hash uses) the same way, in uint64 masked to 32 bits. hash is a structured kernel (its rule:
shapes/hashing.py; HASH its out-kernel, the kernel by name the two through kernels/structured.adapter)."""

import numpy as np

from ...shapes.hashing import hash_meta
from ..structured import adapter

_P1, _P2, _P3 = np.uint64(11400714785074694791), np.uint64(14029467366897019727), np.uint64(1609587929392839161)
_P4, _P5 = np.uint64(9650029242287828579), np.uint64(2870177450012600261)


def _rotl(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def _round(acc, lane):
    return _rotl(acc + lane * _P2, 31) * _P1


def _merge(h, v):
    return (h ^ _round(np.zeros_like(v), v)) * _P1 + _P4


def xxh64(rows, seed):
    """XXH64 of each row of ``rows`` (a [N, B] uint8 array: N messages of B bytes) with ``seed``."""
    n, length = rows.shape
    seed = np.uint64(seed)
    with np.errstate(over="ignore"):
        pos = 0
        if length >= 32:
            v = [
                np.full(n, seed + _P1 + _P2, np.uint64),
                np.full(n, seed + _P2, np.uint64),
                np.full(n, seed, np.uint64),
                np.full(n, seed - _P1, np.uint64),
            ]
            while pos + 32 <= length:
                lanes = np.ascontiguousarray(rows[:, pos : pos + 32]).view("<u8")
                v = [_round(v[k], lanes[:, k]) for k in range(4)]
                pos += 32
            h = _rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)
            for k in range(4):
                h = _merge(h, v[k])
        else:
            h = np.full(n, seed + _P5, np.uint64)
        h = h + np.uint64(length)
        while pos + 8 <= length:
            h ^= _round(np.zeros(n, np.uint64), np.ascontiguousarray(rows[:, pos : pos + 8]).view("<u8")[:, 0])
            h = _rotl(h, 27) * _P1 + _P4
            pos += 8
        if pos + 4 <= length:
            h ^= np.ascontiguousarray(rows[:, pos : pos + 4]).view("<u4")[:, 0].astype(np.uint64) * _P1
            h = _rotl(h, 23) * _P2 + _P3
            pos += 4
        while pos < length:
            h ^= rows[:, pos].astype(np.uint64) * _P5
            h = _rotl(h, 11) * _P1
            pos += 1
        h ^= h >> np.uint64(33)
        h *= _P2
        h ^= h >> np.uint64(29)
        h *= _P3
        h ^= h >> np.uint64(32)
    return h


_Q1, _Q2, _Q3, _Q4, _Q5 = (np.uint64(v) for v in (2654435761, 2246822519, 3266489917, 668265263, 374761393))
_M32 = np.uint64(0xFFFFFFFF)


def _rotl32(x, r):
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _M32


def xxh32(rows, seed):
    """XXH32 of each row of ``rows`` (a [N, B] uint8 array: N messages of B bytes) with ``seed``
    (an unsigned 32-bit int), as uint64 values < 2**32."""
    n, length = rows.shape
    seed = np.uint64(int(seed) & 0xFFFFFFFF)
    words = lambda at: np.ascontiguousarray(rows[:, at : at + 4]).view("<u4")[:, 0].astype(np.uint64)  # noqa: E731
    with np.errstate(over="ignore"):
        pos = 0
        if length >= 16:
            v = [
                np.full(n, (seed + _Q1 + _Q2) & _M32),
                np.full(n, (seed + _Q2) & _M32),
                np.full(n, seed),
                np.full(n, (seed - _Q1) & _M32),
            ]
            while pos + 16 <= length:
                v = [(_rotl32((v[k] + words(pos + 4 * k) * _Q2) & _M32, 13) * _Q1) & _M32 for k in range(4)]
                pos += 16
            h = _rotl32(v[0], 1) + _rotl32(v[1], 7) + _rotl32(v[2], 12) + _rotl32(v[3], 18)
        else:
            h = np.full(n, seed + _Q5)
        h = (h + np.uint64(length)) & _M32
        while pos + 4 <= length:
            h = (_rotl32((h + words(pos) * _Q3) & _M32, 17) * _Q4) & _M32
            pos += 4
        while pos < length:
            h = (_rotl32((h + rows[:, pos].astype(np.uint64) * _Q5) & _M32, 11) * _Q1) & _M32
            pos += 1
        h ^= h >> np.uint64(15)
        h = (h * _Q2) & _M32
        h ^= h >> np.uint64(13)
        h = (h * _Q3) & _M32
        h ^= h >> np.uint64(16)
    return h


def _hash(ins, outs, attrs, meta):
    """The "rows" variant: hash k of each row of X, cast to X's dtype, into Out[:, k, 0] (shapes/hashing.py)."""
    x, out = np.ascontiguousarray(ins["X"]), outs["Out"]
    rows = x.view(np.uint8).reshape(x.shape[0], x.itemsize * int(np.prod(x.shape[1:])))  # (0 rows: none hashed)
    mod = np.uint64(attrs["mod_by"] & 0xFFFFFFFFFFFFFFFF)  # Fluid's uint64 hash % int64: a negative one as uint64
    for k in range(attrs["num_hash"]):
        np.copyto(out[:, k, 0], xxh64(rows, k) % mod, casting="unsafe")


HASH = _hash
hash = adapter(hash_meta, HASH, "hash")  # noqa: A001 -- the op's name
