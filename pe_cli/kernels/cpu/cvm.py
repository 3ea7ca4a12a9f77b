"""Kernels of ops/cvm.py (numpy); ``cvm_rows`` is shared with the CUDA kernels."""

import numpy as np

from ...base.errors import PeError


def cvm_rows(x_rows, cvm_rows_count, ctx):
    """The CVM row each X row takes its show/click from: its sequence's (LoD input), else its own."""
    lod = ctx.lod.get("X")
    if lod:
        offs = np.asarray(lod[0], dtype=np.int64)
        rows = np.repeat(np.arange(offs.size - 1), np.diff(offs))
    else:
        rows = np.arange(x_rows)
    if rows.size and rows.max() >= cvm_rows_count:
        raise PeError(
            f"cvm: CVM has {cvm_rows_count} rows, but X needs {int(rows.max()) + 1} (one per "
            f"{'sequence' if lod else 'row'})"
        )
    return rows


def cvm(ins, attrs):
    x = ins["X"]
    if not attrs["use_cvm"]:
        return {"Y": np.ascontiguousarray(x[:, 2:])}
    y = x.copy()
    y[:, 0] = np.log(x[:, 0] + 1)
    y[:, 1] = np.log(x[:, 1] + 1) - y[:, 0]
    return {"Y": y}


def cvm_grad(ins, attrs, ctx):
    x, c, dy = ins["X"], ins["CVM"], ins["Y@GRAD"]
    dx = np.empty(x.shape, dtype=x.dtype)
    dx[:, 2:] = dy[:, 2:] if attrs["use_cvm"] else dy
    dx[:, :2] = c[cvm_rows(x.shape[0], c.shape[0], ctx)]
    return {"X@GRAD": dx}
