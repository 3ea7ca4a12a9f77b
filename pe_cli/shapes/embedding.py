"""The embedding family's shape rule, shared by shape inference and the kernels of both devices, and the meta
rules of lookup_table, lookup_table_v2 and their gradients, structured kernels (shapes/structured.py): from the
attributes and the shapes and dtypes of W and Ids, Out's shape and dtype and the variant that computes it (the
CPU out-kernels: kernels/cpu/embedding.py), decided once per shape signature. The ids' values (in range, or
padding_idx) are checked by the out-kernel, every run, with the same one line as ever (value_checks.table_ids).

lookup_table (Out: ``lookup_out_shape``, Ids' trailing 1 dropped) and lookup_table_v2 (Out: Ids' shape plus
the width), Out of W's dtype:

- "gather": numpy's take of W's rows;
- "rows": from ``GATHER_PARALLEL_MIN_ROWS`` ids of a 2-D float32 or float64 table whose padding_idx is one
  of its rows (or none): the rows copied on the device's threads (_scatter_loops.lookup_rows_parallel;
  numpy's take, the same bits, on a device of one thread, a W that is not C-contiguous, or while the loop
  compiles).

lookup_table_grad and lookup_table_v2_grad (W@GRAD: W's shape and dtype): "dense", Out@GRAD's rows added into
zeros by id (padding_idx left out); "selected_rows" (is_sparse): a row-sparse W@GRAD, a SelectedRows of the ids
looked up (duplicates kept, padding_idx left out) and their rows of Out@GRAD, whose dense shape and dtype the
Meta names (fresh: the out-kernel puts the SelectedRows it makes, nothing is allocated)."""

import numpy as np

from ..base.dims import numel
from .structured import Meta

GATHER, ROWS, DENSE, SELECTED_ROWS = "gather", "rows", "dense", "selected_rows"
GATHER_PARALLEL_MIN_ROWS = 256  # ids from which a lookup's rows are copied on the device's threads
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def lookup_out_shape(ids_shape, width):
    """Fluid's lookup_table: Ids [..., 1] -> [..., D]; Ids [N] (or [..., T]) -> [N, D] ([..., T, D])."""
    ids_shape = list(ids_shape)
    if len(ids_shape) > 1 and ids_shape[-1] == 1:
        ids_shape = ids_shape[:-1]
    return ids_shape + [width]


def _lookup_meta(attrs, w, ids, shape):
    rows_loop = (
        numel(ids.shape) >= GATHER_PARALLEL_MIN_ROWS
        and len(w.shape) == 2
        and w.dtype in _FLOATS
        and attrs["padding_idx"] < w.shape[0]
    )
    return Meta({"Out": (tuple(shape), w.dtype)}, ROWS if rows_loop else GATHER)


def lookup_meta(attrs, ins, facts):
    """lookup_table's Out and variant (above)."""
    w, ids = ins["W"], ins["Ids"]
    return _lookup_meta(attrs, w, ids, lookup_out_shape(ids.shape, w.shape[1]))


def lookup_v2_meta(attrs, ins, facts):
    """lookup_table_v2's Out and variant (above): Ids' shape, a trailing 1 kept, plus the width."""
    w, ids = ins["W"], ins["Ids"]
    return _lookup_meta(attrs, w, ids, tuple(ids.shape) + (w.shape[1],))


def lookup_grad_meta(attrs, ins, facts):
    """lookup_table_grad's (and lookup_table_v2_grad's) W@GRAD and variant (above)."""
    w = ins["W"]
    outputs = {"W@GRAD": (tuple(w.shape), w.dtype)}
    return Meta(outputs, SELECTED_ROWS, fresh=True) if attrs["is_sparse"] else Meta(outputs, DENSE)


def lookup_dequant_meta(attrs, ins, facts):
    """lookup_table_dequant's Out: Ids' dims but the last, then the 4 * (W's columns - 2) codes of a row, in float32;
    variant "rows": the decoded rows written into the buffer it is handed."""
    w, ids = ins["W"], ins["Ids"]
    return Meta({"Out": (tuple(ids.shape[:-1]) + ((w.shape[1] - 2) * 4,), np.dtype(np.float32))}, "rows")
