"""``fluid.data``: a fed variable whose ``shape`` includes the batch dimension (None or -1 there).

It is pe's ``layers.data`` with ``append_batch_size=False``. Feed checks, compared with Fluid 1.8:
the rank and every fixed (non -1) dimension are checked, as in Fluid; a fed integer array of another
integer dtype is converted (Fluid refuses it). What is fed to ``layers.data`` is not checked, as in
Fluid (a value of another dtype is converted to the declared one).
"""

from ..layers.io import static_data as data

__all__ = ["data"]
