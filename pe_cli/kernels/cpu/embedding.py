"""CPU kernels of the embedding lookup ops (ops/embedding.py): the out-kernels of lookup_table, lookup_table_v2
and their gradient (LOOKUP, LOOKUP_GRAD: the variants of shapes/embedding.py's meta rules), numpy or a copy on
the device's threads; the sparse gradient a SelectedRows, the dense one its rows added into the table's shape
(_scatter_loops.py); lookup_table_dequant's out-kernel (LOOKUP_DEQUANT, its rule shapes/embedding.lookup_dequant_meta)."""

import math

import numpy as np

from ...base.selected_rows import SelectedRows
from ...shapes.embedding import DENSE, GATHER, ROWS, lookup_dequant_meta
from ..structured import adapter
from .launches import FLOATS, Launch, by_variant, one, parts_launch
from ..value_checks import check_dequant_ids, table_ids
from .runtime.loops import is_float, lazy, loop_or, parallel_parts, parallel_ready

_loops = lazy("_scatter_loops")


def add_rows(out, ids, rows):
    """out[ids[i]] += rows[i] in order, as ``np.add.at`` (the same bits): a numba loop for float rows of
    out's dtype (np.add.at itself while the loop compiles on a first run)."""
    if is_float(out, rows) and rows.ndim == 2 and ids.ndim == 1:
        args = (out, ids, np.ascontiguousarray(rows))
        loop_or(_add_at, _loops().add_rows, *args)(*args)
    else:
        np.add.at(out, ids, rows)


def _add_at(out, ids, rows):
    np.add.at(out, ids, rows)


# -- lookup_table, lookup_table_v2 and their gradient: out-kernels of the variants their meta rules choose
# (shapes/embedding.py)


def _ids(ins, pad):
    """Ids as a flat int64 array, checked to lie in the table or be ``pad`` (the one line as ever)."""
    return table_ids(ins["Ids"], ins["W"].shape, pad)


def _zero_padding(out, flat, pad):
    if pad >= 0:
        out[flat == pad] = 0


def _gather(ins, outs, attrs, meta):
    """Out = W's rows picked by Ids (numpy's take: its IndexError names a padding_idx beyond the table)."""
    w, pad = ins["W"], attrs["padding_idx"]
    flat = _ids(ins, pad)
    out = outs["Out"].reshape(flat.size, w.shape[1])
    w.take(flat, axis=0, out=out)
    _zero_padding(out, flat, pad)


def _rows(ins, outs, attrs, meta):
    """Out = W's rows picked by Ids (padding_idx's zeroed), copied on the device's threads
    (_scatter_loops.lookup_rows_parallel); numpy's take, the same bits, on one thread, for a W that is not
    C-contiguous or while the loop compiles."""
    w, pad = ins["W"], attrs["padding_idx"]
    flat = _ids(ins, pad)
    out = outs["Out"].reshape(flat.size, w.shape[1])
    parts = parallel_parts(flat.size, least=1)
    if parts > 1 and w.flags.c_contiguous and parallel_ready(_loops().lookup_rows_parallel, w, flat, out, pad, parts):
        _loops().lookup_rows_parallel(w, flat, out, pad, parts)
    else:
        w.take(flat, axis=0, out=out)
        _zero_padding(out, flat, pad)


def _lookup_launches(op, table, meta):
    """A planned step's launches over int64 Ids: the ids checked (a bad one: its op, run op by op, says the one
    line), then the rows copied: for "rows", the twin where the kernel would run it, else the serial loop; for
    "gather" of a 2-D float table whose padding_idx is one of its rows (or none), the serial loop (each: numpy's
    take's bits). None for another "gather" (the op then runs as a Python launch, its kernel)."""
    w, ids, out = one(op, "W"), one(op, "Ids"), one(op, "Out", "outputs")
    if None in (w, ids, out) or table[ids][1] != np.int64 or meta.variant not in (ROWS, GATHER):
        return None
    if len(table[w][0]) != 2 or table[w][1] not in FLOATS or op.attrs["padding_idx"] >= table[w][0][0]:
        return None
    (rows, width), n, pad = table[w][0], math.prod(table[ids][0]), op.attrs["padding_idx"]
    check = Launch(_loops().bad_id, [("var", ids, (n,)), ("const", rows), ("const", pad)], checked=True)
    args = [("var", w, None), ("var", ids, (n,)), ("var", out, (n, width)), ("const", pad)]
    loops, parts = _loops(), parallel_parts(n, least=1) if meta.variant == ROWS else 1
    return [check, parts_launch(loops.lookup_rows, loops.lookup_rows_parallel, parts, args, writes=[out])]


def _grad_rows(ins, attrs):
    """The ids looked up (padding_idx left out) and their rows of Out@GRAD."""
    w, pad = ins["W"], attrs["padding_idx"]
    flat = _ids(ins, pad)
    rows = ins["Out@GRAD"].reshape(-1, w.shape[1])
    if pad >= 0:
        keep = flat != pad
        flat, rows = flat[keep], rows[keep]
    return flat, rows


def _dense_grad(ins, outs, attrs, meta):
    flat, rows = _grad_rows(ins, attrs)
    dw = outs["W@GRAD"]
    dw.fill(0)
    add_rows(dw, flat, rows)


def _selected_rows_grad(ins, outs, attrs, meta):
    """The rows looked up (duplicates kept, padding_idx left out) and their gradients, a SelectedRows."""
    w = ins["W"]
    flat, rows = _grad_rows(ins, attrs)
    outs["W@GRAD"] = SelectedRows(flat.copy(), np.array(rows, dtype=w.dtype), w.shape[0])


def _grad_launches(op, table, meta):
    """A planned step's launches of the "dense" gradient over int64 Ids and a 2-D float table of Out@GRAD's dtype:
    the ids checked (a bad one: its op, run op by op, says the one line), then _scatter_loops.table_grad, the
    out-kernel's zeros and np.add.at (the same bits). None otherwise (a Python launch)."""
    w, ids, dout, dw = one(op, "W"), one(op, "Ids"), one(op, "Out@GRAD"), one(op, "W@GRAD", "outputs")
    if meta.variant != DENSE or None in (w, ids, dout, dw) or table[ids][1] != np.int64:
        return None
    if len(table[w][0]) != 2 or table[w][1] not in FLOATS or table[dout][1] != table[w][1]:
        return None
    (rows, width), n, pad = table[w][0], math.prod(table[ids][0]), op.attrs["padding_idx"]
    if pad >= rows or math.prod(table[dout][0]) != n * width:
        return None
    check = Launch(_loops().bad_id, [("var", ids, (n,)), ("const", rows), ("const", pad)], checked=True)
    args = [("var", ids, (n,)), ("var", dout, (n, width)), ("const", pad), ("var", dw, None)]
    return [check, Launch(_loops().table_grad, args, writes=[dw])]


LOOKUP = by_variant("lookup_table_out", _lookup_launches, gather=_gather, rows=_rows)
LOOKUP_GRAD = by_variant("lookup_table_grad_out", _grad_launches, dense=_dense_grad, selected_rows=_selected_rows_grad)


def _lookup_table_dequant(ins, outs, attrs, meta):
    """The "rows" variant: each Id's row decoded into its row of the Out it is handed (zeros for padding_idx)."""
    w, ids = np.ascontiguousarray(ins["W"], dtype=np.float32), np.asarray(ins["Ids"]).reshape(-1)
    rows, width = w.shape[0], (w.shape[1] - 2) * 4
    pad = attrs["padding_idx"]
    check_dequant_ids(ids, rows, pad)
    safe = np.where(ids == pad, 0, ids) if pad != -1 else ids
    lo, hi = w[safe, 0], w[safe, 1]
    codes = np.ascontiguousarray(w[safe, 2:]).view(np.uint8).reshape(len(ids), width).astype(np.int32)
    out = outs["Out"].reshape(len(ids), width)
    np.multiply(((hi - lo) / np.float32(256))[:, None], codes.astype(np.float32), out=out)
    out += lo[:, None]
    if pad != -1:
        out[ids == pad] = 0


LOOKUP_DEQUANT = _lookup_table_dequant
lookup_table_dequant = adapter(lookup_dequant_meta, LOOKUP_DEQUANT, "lookup_table_dequant")
