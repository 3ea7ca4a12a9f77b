"""The sequence families' rules on LoD and lengths, shared by the kernels of both devices: each row's position in
its sequence, sequence_mask's length, the CVM row each row of cvm reads."""

import numpy as np

from ..base.errors import PeError


def positions(x_shape, ctx):
    """Each row's position in its sequence: rows of a [T, P] LoDTensor, or the second dim of a
    dense [N, M, P] batch (as a flat array over the N * M rows)."""
    lod = ctx.lod.get("X")
    if lod:
        offs = np.asarray(lod[-1], dtype=np.int64)
        if len(x_shape) != 2 or offs[-1] != x_shape[0]:
            raise PeError(f"add_position_encoding: X {list(x_shape)} does not match its LoD {offs.tolist()}")
        return np.arange(x_shape[0], dtype=np.int64) - np.repeat(offs[:-1], np.diff(offs))
    if len(x_shape) != 3:
        raise PeError(f"add_position_encoding: X {list(x_shape)} must be 3-D, or a 2-D LoDTensor")
    return np.tile(np.arange(x_shape[1], dtype=np.int64), x_shape[0])


def mask_length(ins, attrs, x, host=np.asarray):
    """sequence_mask's length: MaxLenTensor's value, else the maxlen attribute (-1: x's largest)."""
    if "MaxLenTensor" in ins:
        return int(host(ins["MaxLenTensor"]).reshape(-1)[0])
    return int(host(x).max(initial=0)) if attrs["maxlen"] < 0 else attrs["maxlen"]


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
