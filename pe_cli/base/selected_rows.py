"""SelectedRows: a row-sparse value, Fluid's SelectedRows, the one type pe uses for it.

lookup_table_grad with is_sparse=True writes one as W@GRAD; the optimizer ops that declare the
``selected_rows`` trait (sgd, momentum, adam, adagrad, sum) read it, the devices' all-reduce
concatenates it, and every other op gets it densified by the executor (docs/SPARSE.md).
"""

import numpy as np


class SelectedRows:
    """Rows ``rows`` (int64 [K], in [0, height), duplicates allowed) of a [height, ...] tensor hold
    ``values`` ([K, ...]); every other row is zero, and the values of a row listed twice add up.
    ``rows`` and ``values`` are both host numpy arrays or both arrays of one device; a kernel never
    modifies them (a new SelectedRows is made instead)."""

    __slots__ = ("rows", "values", "height")

    def __init__(self, rows, values, height):
        self.rows = rows
        self.values = values
        self.height = int(height)

    @property
    def shape(self):
        """The dense shape: [height, ...] (so np.shape and shape checks see the parameter's shape)."""
        return (self.height,) + tuple(self.values.shape[1:])

    @property
    def dtype(self):
        return self.values.dtype

    def with_arrays(self, rows, values):
        """The same height over other arrays (a copy on another device, scaled values, ...)."""
        return SelectedRows(rows, values, self.height)

    def numpy(self):
        """Host copies of (rows, values)."""
        return _host(self.rows), _host(self.values)

    def to_dense(self):
        """The dense host array: zeros, plus each row's values (duplicates summed)."""
        rows, values = self.numpy()
        dense = np.zeros(self.shape, dtype=values.dtype)
        np.add.at(dense, rows, values)
        return dense

    def merged(self):
        """Host (rows, values) with each row once, ascending, its duplicates' values summed (Fluid's
        MergeAdd: what adagrad and lazy adam apply)."""
        rows, values = self.numpy()
        return merge_rows(rows, values, np.argsort(rows, kind="stable"))

    def __repr__(self):
        return f"SelectedRows(height={self.height}, rows={len(self.rows)}, values{list(self.values.shape)})"


def merge_rows(rows, values, order):
    """(rows, values) with each row once, ascending, its duplicates' values summed in their order, one
    after the other, as Fluid's MergeAdd adds them (``order``: a stable argsort of ``rows``)."""
    ordered = rows[order]
    first = np.concatenate([[True], ordered[1:] != ordered[:-1]]) if len(rows) else np.zeros(0, bool)
    starts = np.flatnonzero(first)
    if len(starts) == len(rows):
        return ordered, values[order]
    sorted_values = values[order]
    sums = sorted_values[starts]  # (np.add.reduceat adds a run in another order)
    later = ~first
    np.add.at(sums, np.cumsum(first)[later] - 1, sorted_values[later])
    return ordered[starts], sums


def _host(array):
    return array.copy_to_host() if hasattr(array, "copy_to_host") else np.asarray(array)


def concat(parts):
    """Host SelectedRows of ``parts`` end to end (in order): their sum, as Fluid gathers sparse
    gradients across devices."""
    first = parts[0]
    if len(parts) == 1:
        return first
    arrays = [p.numpy() for p in parts]
    return first.with_arrays(np.concatenate([r for r, _ in arrays]), np.concatenate([v for _, v in arrays]))
