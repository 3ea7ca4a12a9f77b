"""unique_consecutive's kernel (numpy)."""

import numpy as np

from ...base.dtypes import convert_dtype


def unique_consecutive(ins, attrs):
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
