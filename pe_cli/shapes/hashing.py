"""The meta rule (shapes/structured.py) of hash (ops/hashing.py; out-kernel: kernels/cpu/hashing.py): Out
[rows of X, num_hash, 1] in X's dtype; variant "rows": each hash of X's rows written into its column of Out."""

import numpy as np

from .structured import Meta


def hash_meta(attrs, ins, facts):
    x = ins["X"]
    return Meta({"Out": ((x.shape[0], attrs["num_hash"], 1), np.dtype(x.dtype))}, "rows")
