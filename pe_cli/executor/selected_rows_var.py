"""``scope.var(name).get_selected_rows()``: Fluid's SelectedRows face of a scope variable, as its op
tests fill a row-sparse input (``set_height``, ``set_rows``, ``get_tensor().set(values)``) and read a
row-sparse output (``rows()``, ``height()``, ``np.array(get_tensor())``). What the variable holds for
the kernels is a SelectedRows value in its tensor (pe_cli/base/selected_rows.py)."""

import numpy as np

from ..base.selected_rows import SelectedRows
from ..framework.lod_tensor import LoDTensor


class SelectedRowsVar:
    def __init__(self, var):
        self._var = var
        self._height, self._rows, self._values = 0, [], None

    def _held(self):
        value = self._var.tensor._array
        return value if isinstance(value, SelectedRows) else None

    def height(self):
        held = self._held()
        return held.height if held is not None else self._height

    def set_height(self, height):
        self._height = int(height)
        self._store()

    def rows(self):
        held = self._held()
        return [int(r) for r in held.numpy()[0]] if held is not None else list(self._rows)

    def set_rows(self, rows):
        self._rows = [int(r) for r in rows]
        self._store()

    def numel(self):
        """The number of values held (rows listed times the row's size), as Fluid's."""
        held = self._held()
        return 0 if held is None else int(np.asarray(held.numpy()[1]).size)

    def sync_index(self):
        """Nothing to do: pe finds a row by its id without an index (Fluid builds one here)."""

    def get_tensor(self):
        """The values (one row per entry of rows()); ``set`` on it sets them."""
        held = self._held()
        if held is not None:
            self._var.tensor._lent = True  # (its values array handed out: no run writes it in place)
        return _Values(self, None if held is None else held.numpy()[1])

    def _store(self, values=None):
        if values is not None:
            self._values = values
        if self._values is not None:
            self._var.tensor._array = SelectedRows(np.asarray(self._rows, np.int64), self._values, self._height)
            self._var.tensor._lent = True  # (the caller's values array)


class _Values(LoDTensor):
    def __init__(self, holder, values):
        super().__init__(values)
        self._holder = holder

    def set(self, array, place=None):
        super().set(array, place)
        self._holder._store(self._array)

    def _refresh(self):
        """The values the variable holds now: an op run after this tensor was taken may have replaced
        them, with new row-sparse values or with a dense tensor (fake_init: Fluid resizes the values)."""
        held = self._holder._held()
        if held is not None:
            self._array = held.numpy()[1]
        elif self._holder._var.tensor._array is not None:
            self._array = self._holder._var.tensor._array

    def __array__(self, dtype=None, copy=None):
        self._refresh()
        return super().__array__(dtype, copy)

    def shape(self):
        self._refresh()
        return super().shape()
