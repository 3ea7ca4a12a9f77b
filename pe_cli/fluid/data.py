"""``fluid.data``: a fed variable whose ``shape`` includes the batch dimension (None or -1 there).

It is pe's ``layers.data`` with ``append_batch_size=False``. Feed checks, compared with Fluid 1.8:
the rank and every fixed (non -1) dimension are checked, as in Fluid; a fed integer array of another
integer dtype is converted (Fluid refuses it); and pe also checks the shapes fed to ``layers.data``,
which Fluid does not.
"""
from ..layers import data as _layers_data

__all__ = ["data"]


def data(name, shape, dtype="float32", lod_level=0):
    shape = [-1 if d is None else int(d) for d in shape]
    return _layers_data(name=name, shape=shape, append_batch_size=False, dtype=dtype, lod_level=lod_level)
