"""Paddle 2.x's tensor arrays and Fluid creation names that ``paddle.tensor`` keeps (2.6's
paddle/tensor/array.py and creation.py): ``create_array`` takes 2.x's ``initialized_list``."""

from .. import layers as L
from ..base.errors import ArgumentTypeError
from ..framework.variable import Variable

array_length, array_read, array_write = L.array_length, L.array_read, L.array_write
create_tensor = L.create_tensor


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """Fluid's fill_constant as Paddle 2.x's ``paddle.tensor.fill_constant``: an empty ``shape``
    makes a 0-D tensor."""
    return L.fill_constant(shape, dtype, value, force_cpu=force_cpu, out=out, zero_dim=True)


__all__ = ["array_length", "array_read", "array_write", "create_array", "create_tensor", "fill_constant"]


def create_array(dtype, initialized_list=None):
    """An empty tensor array of ``dtype``, or one holding ``initialized_list``'s Variables in order."""
    items = [] if initialized_list is None else initialized_list
    if not isinstance(items, (list, tuple)):
        raise ArgumentTypeError(f"create_array: initialized_list must be a list or tuple, got {type(items).__name__}")
    array = L.create_array(dtype)
    for k, item in enumerate(items):
        if not isinstance(item, Variable):
            raise ArgumentTypeError(
                f"create_array: initialized_list[{k}] must be a Variable, got {type(item).__name__}"
            )
        L.array_write(item, L.fill_constant([1], "int64", k), array)
    return array
