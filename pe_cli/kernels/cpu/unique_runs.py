"""unique_consecutive's kernel (numpy): the out-kernel of shapes/indexing.py's unique_consecutive_meta (fresh)."""

import numpy as np

from ...base.dtypes import convert_dtype
from ...shapes.indexing import unique_consecutive_meta
from ..structured import adapter, fresh_kernel


def _unique_consecutive(ins, attrs):
    x = ins["X"]
    dtype = convert_dtype(attrs["dtype"])
    if attrs["axis"]:
        axis = attrs["axis"][0] % x.ndim
        moved = np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)
        change = np.concatenate([[True], np.any(moved[1:] != moved[:-1], axis=1)]) if len(moved) else np.zeros(0, bool)
        out = np.take(x, np.flatnonzero(change), axis=axis)
    else:
        flat = x.reshape(-1)
        change = np.concatenate([[True], flat[1:] != flat[:-1]]) if flat.size else np.zeros(0, bool)
        out = flat[change]
    starts = np.flatnonzero(change)
    counts = np.diff(np.append(starts, change.size))
    return {
        "Out": np.ascontiguousarray(out),
        "Index": (np.cumsum(change) - 1).astype(dtype),
        "Counts": counts.astype(dtype),
    }


UNIQUE_CONSECUTIVE = fresh_kernel(_unique_consecutive, "unique_consecutive_out")
unique_consecutive = adapter(unique_consecutive_meta, UNIQUE_CONSECUTIVE, "unique_consecutive")  # (CUDA's host's)
