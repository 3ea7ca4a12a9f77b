"""CPU kernels of the embedding lookup ops (ops/embedding.py): numpy; the sparse gradient is a
SelectedRows, the dense one its rows added into the table's shape (_scatter_loops.py)."""

import numpy as np

from ...base.selected_rows import SelectedRows
from ...shapes.embedding import lookup_out_shape
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


# -- lookup_table -----------------------------------------------------------------------------------


def lookup_table(ins, attrs):
    w, ids = ins["W"], ins["Ids"]
    pad = attrs["padding_idx"]
    flat = table_ids(ids, w.shape, pad)
    out = _gather(w, flat, pad)
    if pad >= 0:
        out[flat == pad] = 0
    return {"Out": out.reshape(lookup_out_shape(ids.shape, w.shape[1]))}


def _gather(w, flat, pad):
    """w[flat] (rows of a 2-D table, ``flat`` checked by table_ids: in range, or ``pad``): numpy's, or
    a copy on the device's threads from GATHER_PARALLEL_MIN_ROWS ids of a float table
    (_scatter_loops.gather_rows_parallel), where ``pad`` is a row of the table too (the loop does not
    check its ids; numpy's IndexError names one beyond it)."""
    parts = parallel_parts(flat.size, least=GATHER_PARALLEL_MIN_ROWS)
    if parts > 1 and w.ndim == 2 and is_float(w) and w.flags.c_contiguous and pad < w.shape[0]:
        out = np.empty((flat.size, w.shape[1]), dtype=w.dtype)
        if parallel_ready(_loops().gather_rows_parallel, w, flat, out, parts):
            _loops().gather_rows_parallel(w, flat, out, parts)
            return out
    return w[flat]


GATHER_PARALLEL_MIN_ROWS = 256  # ids from which a lookup's rows are copied on the device's threads


def lookup_table_v2(ins, attrs):
    out = lookup_table(ins, attrs)["Out"]
    return {"Out": out.reshape(tuple(ins["Ids"].shape) + (ins["W"].shape[1],))}


def lookup_table_grad(ins, attrs):
    w, ids, dout = ins["W"], ins["Ids"], ins["Out@GRAD"]
    pad = attrs["padding_idx"]
    flat = table_ids(ids, w.shape, pad)
    rows = dout.reshape(-1, w.shape[1])
    if pad >= 0:
        keep = flat != pad
        flat, rows = flat[keep], rows[keep]
    if attrs["is_sparse"]:  # the rows looked up (duplicates kept, padding_idx left out) and their gradients
        return {"W@GRAD": SelectedRows(flat.copy(), np.array(rows, dtype=w.dtype), w.shape[0])}
    dw = np.zeros(w.shape, dtype=w.dtype)
    add_rows(dw, flat, rows)
    return {"W@GRAD": dw}


def lookup_table_dequant(ins, attrs):
    w, ids = np.ascontiguousarray(ins["W"], dtype=np.float32), np.asarray(ins["Ids"]).reshape(-1)
    rows, width = w.shape[0], (w.shape[1] - 2) * 4
    pad = attrs["padding_idx"]
    check_dequant_ids(ids, rows, pad)
    safe = np.where(ids == pad, 0, ids) if pad != -1 else ids
    lo, hi = w[safe, 0], w[safe, 1]
    codes = np.ascontiguousarray(w[safe, 2:]).view(np.uint8).reshape(len(ids), width).astype(np.int32)
    out = ((hi - lo) / np.float32(256))[:, None] * codes.astype(np.float32) + lo[:, None]
    if pad != -1:
        out[ids == pad] = 0
    return {"Out": out.astype(np.float32).reshape(tuple(np.shape(ins["Ids"])[:-1]) + (width,))}
