"""Kernel of ops/position.py: numpy, and one numba pass (_elementwise_loops.py) for float inputs;
``positions`` and ``encoding`` are shared with CUDA."""

import functools

import numpy as np

from ...base.errors import PeError
from . import _replicas
from .runtime.loops import is_float, lazy, run_in_parts
from ...shapes.sequence import positions

_elementwise = lazy("_elementwise_loops")


def encoding(pos, size):
    """[len(pos), size] of float64: sin then cos of pos / 10000^(k / (size/2 - 1)), as Fluid's kernel."""
    half = size // 2
    k = np.arange(half, dtype=np.float64)
    val = pos[:, None] / (np.power(10000.0, k / (half - 1)) if half > 1 else 10000.0)
    return np.concatenate([np.sin(val), np.cos(val)], axis=1)


@functools.lru_cache(maxsize=16)
def _scaled_table(length, size, beta):
    """beta times the encodings of positions 0 .. length - 1 (float64 [length, size]), made once:
    a step adds rows of it instead of computing sin and cos of every position again."""
    table = encoding(np.arange(length, dtype=np.int64), size) * beta
    table.flags.writeable = False
    return table


def add_position_encoding(ins, attrs, ctx):
    x = ins["X"]
    size, alpha, beta = x.shape[-1], x.dtype.type(attrs["alpha"]), float(attrs["beta"])
    if ctx.lod.get("X"):
        pos = positions(x.shape, ctx)
        pe = _scaled_table(int(pos.max(initial=0)) + 1, size, beta)[pos]
    else:
        if x.ndim != 3:
            raise PeError(f"add_position_encoding: X {list(x.shape)} must be 3-D, or a 2-D LoDTensor")
        pe = _scaled_table(x.shape[1], size, beta)
    if is_float(x) and x.size:  # one pass (_elementwise_loops.py): the same bits
        out, rows = np.empty(x.shape, x.dtype), (-1, size)
        run_in_parts(
            _elementwise(),
            "add_table_rows",
            x.size,
            np.ascontiguousarray(x).reshape(rows),
            alpha,
            np.ascontiguousarray(pe),
            out.reshape(rows),
            replica=_replicas.add_table_rows,
        )
        return {"Out": out}
    return {"Out": (x * alpha + pe).astype(x.dtype, copy=False)}
