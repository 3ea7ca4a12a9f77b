"""The CPU out-kernel of ops/position.py (a structured kernel; its meta rule: shapes/position.py): one numba pass
(_elementwise_loops.py) for float inputs ("loop"), numpy's form otherwise ("fresh"); ``encoding`` is shared with
CUDA."""

import functools
import math

import numpy as np

from . import _replicas
from .launches import by_variant, one, parts_launch
from .runtime.loops import lazy, parallel_parts, run_in_parts
from ..structured import fresh_output

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


def _table(x, attrs, meta):
    """beta times the encodings of each row's position (of the dense batch's M positions)."""
    pos, length = meta.args
    table = _scaled_table(length, x.shape[-1], float(attrs["beta"]))
    return table if pos is None else table[pos]


def _loop(ins, outs, attrs, meta):
    x = ins["X"]
    rows = (-1, x.shape[-1])
    run_in_parts(
        _elementwise(),
        "add_table_rows",
        x.size,
        np.ascontiguousarray(x).reshape(rows),
        x.dtype.type(attrs["alpha"]),
        np.ascontiguousarray(_table(x, attrs, meta)),
        outs["Out"].reshape(rows),
        replica=_replicas.add_table_rows,
    )


def _fresh(ins, outs, attrs, meta):
    x = ins["X"]
    out = (x * x.dtype.type(attrs["alpha"]) + _table(x, attrs, meta)).astype(x.dtype, copy=False)
    outs["Out"] = fresh_output(out, meta.outputs["Out"], (x,))


def _launches(op, table, meta):
    """A planned step's launch of the "loop" variant on a dense batch: add_table_rows (its parallel twin where
    _loop's run_in_parts runs it: the same bits) over X and Out as rows, with the positions' scaled table the kernel reads; None for a
    LoD batch's positions or the "fresh" variant (a Python launch)."""
    x, out = one(op, "X"), one(op, "Out", "outputs")
    pos, length = meta.args
    if meta.variant != "loop" or pos is not None or None in (x, out) or x not in table:
        return None
    shape, dtype = table[x]
    rows = (math.prod(shape[:-1]), shape[-1])
    positions = np.ascontiguousarray(_scaled_table(length, shape[-1], float(op.attrs["beta"])))
    args = [("var", x, rows), ("const", dtype.type(op.attrs["alpha"])), ("array", positions), ("var", out, rows)]
    loops, parts = _elementwise(), parallel_parts(math.prod(shape))
    return [parts_launch(loops.add_table_rows, loops.add_table_rows_parallel, parts, args, writes=[out])]


ADD_POSITION_ENCODING = by_variant("add_position_encoding_out", _launches, loop=_loop, fresh=_fresh)
