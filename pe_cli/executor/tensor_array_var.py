"""``scope.var(name).get_lod_tensor_array()``: Fluid's LoDTensorArray face of a scope variable, as
its op tests fill an array input (``append(lod_tensor)``) and read one back (``len``, ``[i]``).
What the variable holds for the kernels is a TensorArray value in its tensor
(pe_cli/base/tensor_array.py): the arrays and the LoD each was given."""

import numpy as np

from ..base.tensor_array import TensorArray
from ..framework.lod_tensor import LoDTensor


def _host(x):
    return x.copy_to_host() if hasattr(x, "copy_to_host") else x


class TensorArrayVar:
    def __init__(self, var):
        self._var = var

    def _held(self):
        tensor = self._var.tensor
        value = tensor._array
        if not isinstance(value, TensorArray):
            value = tensor._array = TensorArray(value if isinstance(value, list) else ())
        return value

    def __len__(self):
        return len(self._held())

    def __getitem__(self, i):
        held = self._held()
        item = held[i]
        return LoDTensor(None if item is None else _host(item), held.lods[i])

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __setitem__(self, i, tensor):
        held = self._held()
        held[i], held.lods[i] = self._value(tensor)

    def append(self, tensor):
        held = self._held()
        value, lod = self._value(tensor)
        held.append(value)
        held.lods.append(lod)

    @staticmethod
    def _value(tensor):
        """A LoDTensor (or an array) as the array and the LoD the array keeps (copies, as Fluid's)."""
        if isinstance(tensor, LoDTensor):
            return np.array(tensor, copy=True), (tensor.lod() or None)
        return np.array(tensor, copy=True), None
