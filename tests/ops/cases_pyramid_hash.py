"""Op cases for pyramid_hash (ops/pyramid_hash.py): a scalar, pure-Python XXH32 (written from the
xxHash specification, separately from the kernel's vectorized one) and glibc's own rand_r (through
ctypes) drive a loop over sequences, pyramid layers and n-grams; W's gradient by finite differences."""

import ctypes

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

_P = (2654435761, 2246822519, 3266489917, 668265263, 374761393)
_M = 0xFFFFFFFF


def _rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & _M


def xxh32(data, seed):
    """XXH32 of the bytes ``data`` with ``seed``, one byte string at a time."""
    seed, n, i = seed & _M, len(data), 0
    word = lambda at: int.from_bytes(data[at : at + 4], "little")  # noqa: E731
    if n >= 16:
        v = [(seed + _P[0] + _P[1]) & _M, (seed + _P[1]) & _M, seed, (seed - _P[0]) & _M]
        while i + 16 <= n:
            v = [_rotl((v[k] + word(i + 4 * k) * _P[1]) & _M, 13) * _P[0] & _M for k in range(4)]
            i += 16
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
    else:
        h = (seed + _P[4]) & _M
    h = (h + n) & _M
    while i + 4 <= n:
        h = _rotl((h + word(i) * _P[2]) & _M, 17) * _P[3] & _M
        i += 4
    while i < n:
        h = _rotl((h + data[i] * _P[4]) & _M, 11) * _P[0] & _M
        i += 1
    h ^= h >> 15
    h = h * _P[1] & _M
    h ^= h >> 13
    h = h * _P[2] & _M
    return h ^ (h >> 16)


def _ref(ins, a):
    ids, w, lengths = np.asarray(ins["X"]).reshape(-1), ins["W"].reshape(-1), ins["X"].recursive_sequence_lengths()[0]
    libc, state = ctypes.CDLL("libc.so.6"), ctypes.c_uint(a["seed"])
    out, drop, start = [], [], 0
    for length in lengths:
        rows = []
        for n in range(2, min(a["pyramid_layer"], length) + 1):
            for s in range(start, start + length - n + 1):
                keep = not a["is_training"] or np.float32(libc.rand_r(ctypes.byref(state))) / np.float32(
                    2147483647
                ) >= np.float32(a["drop_out_percent"])
                drop.append(int(keep))
                if keep:
                    data = ids[s : s + n].astype(np.float32).tobytes()
                    rows.append(
                        np.concatenate(
                            [
                                w[p : p + a["rand_len"]]
                                for p in (
                                    xxh32(data, c) % a["space_len"] for c in range(0, a["num_emb"], a["rand_len"])
                                )
                            ]
                        )
                    )
        out += rows or [np.zeros(a["num_emb"])]
        start += length
    scale = 1.0 if a["is_training"] else a["drop_out_percent"]
    return {
        "Out": np.array(out) * scale,
        "DropPos": np.array(drop, np.int32).reshape(-1, 1),
        "X_Temp_Out": ids.astype(np.float32).reshape(-1, 1),
    }


def _ids(values, lengths):
    t = LoDTensor(np.array(values, dtype=np.int32).reshape(-1, 1))
    t.set_recursive_sequence_lengths([lengths])
    return t


_W = np.random.default_rng(61).normal(size=(32, 1))
_BASE = {"num_emb": 6, "space_len": 29, "rand_len": 3, "use_filter": False, "lr": 0.1}
CASES = [
    OpCase(
        "pyramid_hash",
        {"X": _ids([3, -7, 11, 5, 900, 42, 8, 8, 1], [5, 1, 0, 3]), "W": _W},
        _ref,
        attrs=dict(_BASE, pyramid_layer=3, is_training=1, drop_out_percent=0.4, seed=5),
        grad=("W",),
        loss_outputs=("Out",),
        name="pyramid_hash_training_dropout",
    ),
    OpCase(
        "pyramid_hash",
        {"X": _ids([1, 2, 3, 4, 5, 6, 0, 77], [6, 2]), "W": _W},
        _ref,
        attrs=dict(_BASE, pyramid_layer=5, is_training=0, drop_out_percent=0.5, seed=0),
        grad=("W",),
        loss_outputs=("Out",),
        name="pyramid_hash_eval_4_and_5_grams",
    ),
    OpCase(
        "pyramid_hash",
        {"X": _ids([9, 9, 9, 4], [2, 2]), "W": _W},
        _ref,
        attrs=dict(_BASE, pyramid_layer=2, is_training=1, drop_out_percent=1.0, seed=2),
        grad=("W",),
        loss_outputs=("Out",),
        name="pyramid_hash_all_dropped",
    ),
]
