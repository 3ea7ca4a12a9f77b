"""Kernels of pe_cli/ops/filling.py (numpy)."""

import numpy as np

from ...base.dtypes import convert_dtype


def fill_any(ins, attrs):
    x = ins["X"]
    return {"Out": np.full(x.shape, np.float32(attrs["value"]) if x.dtype.kind == "f" else attrs["value"], x.dtype)}


def fill_any_grad(ins, attrs):
    return {"X@GRAD": np.zeros_like(ins["Out@GRAD"])}


def empty(ins, attrs):
    return {"Out": np.zeros([int(d) for d in attrs["shape"]], convert_dtype(attrs["dtype"]))}


def full_int_array(ins, attrs):
    return {"out": np.array(attrs["value"], dtype=convert_dtype(attrs["dtype"]))}


def _triangle(rows, cols, offset, upper, dtype):
    r, c = np.indices((rows, cols))
    keep = (c - r >= offset) if upper else (c - r <= offset)
    return {"out": np.stack([r[keep], c[keep]]).astype(convert_dtype(dtype)).reshape(2, -1)}


def tril_indices(ins, attrs):
    return _triangle(attrs["rows"], attrs["cols"], attrs["offset"], False, attrs["dtype"])


def triu_indices(ins, attrs):
    return _triangle(attrs["row"], attrs["col"], attrs["offset"], True, attrs["dtype"])


def logspace(ins, attrs):
    """Paddle 2.6's LogspaceKernel: step = (stop - start) / (num - 1), the first num / 2 values from start,
    the others back from stop, each base ** t."""
    dtype = np.dtype(convert_dtype(attrs["dtype"]))
    start, stop, base = (float(np.asarray(ins[s]).astype(dtype).reshape(-1)[0]) for s in ("Start", "Stop", "Base"))
    num = int(np.asarray(ins["Num"]).reshape(-1)[0])
    if num <= 1:
        return {"Out": np.array([base**start] if num == 1 else [], dtype=dtype)}
    step = (stop - start) / (num - 1)
    i = np.arange(num)
    t = np.where(i < num // 2, start + step * i, stop - step * (num - i - 1))
    return {"Out": np.power(base, t).astype(dtype)}
