"""Op cases for hash (ops/hashing.py). The expected values are XXH64 digests computed with the
reference xxHash library (python-xxhash) for these rows and seeds, modulo mod_by; they cover the
algorithm's paths: under 8 bytes, 8-byte lanes, a 4-byte tail and the 32-byte stripes."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor


def _expect(values, dtype):
    return lambda i, a: {"Out": np.array(values, dtype=dtype).reshape(len(values), -1, 1)}


CASES = [
    OpCase(
        "hash",
        {"X": np.array([[1, 2], [3, -4], [123456789, 0]], dtype=np.int32)},
        _expect([[7722, 8407, 6337], [8005, 5505, 5775], [4189, 2734, 4773]], np.int32),
        attrs={"num_hash": 3, "mod_by": 10000},
    ),
    OpCase(
        "hash",
        {"X": np.arange(11, dtype=np.int32).reshape(1, -1)},
        _expect([[255342, 577797]], np.int32),
        attrs={"num_hash": 2, "mod_by": 1000003},
        name="hash_44_bytes",
    ),
    OpCase(
        "hash",
        {"X": LoDTensor(np.array([[7]], dtype=np.int32), [[0, 1]])},
        _expect([[1, 2, 58, 22]], np.int32),
        attrs={"num_hash": 4, "mod_by": 97},
        name="hash_lod_4_bytes",
    ),
    OpCase(
        "hash",
        {"X": np.array([[5, -1, 9, 2**40, 3], [0, 0, 0, 0, 1]], dtype=np.int64)},
        _expect([[709, 685], [426, 620]], np.int64),
        attrs={"num_hash": 2, "mod_by": 1000},
        name="hash_int64_rows",
    ),
    OpCase(
        "hash",
        {"X": np.array([[42]], dtype=np.int64)},
        _expect([[65587, 52723, 45439]], np.int64),
        attrs={"num_hash": 3, "mod_by": 100000},
        name="hash_int64_one",
    ),
    # Fluid 1.8.5's values: a negative mod_by is taken as its uint64 (-1 keeps the whole hash); a float one
    # (a LONG attribute) is truncated
    OpCase(
        "hash",
        {"X": np.array([[5, -1], [0, 7], [2**40, 3]], dtype=np.int64)},
        _expect(
            [
                [3574616890949985326, -4061618334066241696],
                [-8827430924072549365, 1512765193504722081],
                [5288763112604891334, 1747473570044677576],
            ],
            np.int64,
        ),
        attrs={"num_hash": 2, "mod_by": -1},
        name="hash_negative_mod_by",
    ),
    OpCase(
        "hash",
        {"X": np.array([[5, -1], [0, 7], [2**40, 3]], dtype=np.int64)},
        _expect([[5], [6], [2]], np.int64),
        attrs={"num_hash": 1, "mod_by": 7.9},
        name="hash_float_mod_by",
    ),
    OpCase(  # (an empty batch: Out [0, num_hash, 1], as Paddle 2.6.2's kernel gives it)
        "hash",
        {"X": np.zeros((0, 2), dtype=np.int64)},
        lambda i, a: {"Out": np.zeros((0, 3, 1), np.int64)},
        attrs={"num_hash": 3, "mod_by": 7},
        name="hash_empty_batch",
    ),
]
