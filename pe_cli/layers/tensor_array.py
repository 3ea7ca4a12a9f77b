"""Fluid's tensor-array layers (LoDTensorArray: a list of tensors a loop writes and reads by an int64 index):
create_array, array_write, array_read, array_length and tensor_array_to_tensor. control_flow.py offers them
under Fluid's layers.control_flow, as Fluid does."""

from ..base.dtypes import VarType
from ..framework.variable import Variable
from .checks import fluid_checks
from .helper import LayerHelper


def create_array(dtype):
    """An empty LoDTensorArray (its value: a list of tensors). As Fluid's, a variable only: the first
    write_to_array gives it a value."""
    helper = LayerHelper("array")
    return helper.create_variable(name=f"{helper.name}.out", dtype=dtype, type=VarType.LOD_TENSOR_ARRAY)


@fluid_checks("array_write", i=("int64",), x=Variable)
def array_write(x, i, array=None):
    """``array[i] = x`` (a new array when None); returns the array."""
    helper = LayerHelper("array_write")
    if array is None:
        array = create_array(x.dtype)
    helper.append_op("write_to_array", {"X": [x], "I": [i]}, {"Out": [array]})
    return array


@fluid_checks("array_read", i=("int64",))
def array_read(array, i):
    helper = LayerHelper("array_read")
    out = helper.create_variable_for_type_inference(array.dtype)
    helper.append_op("read_from_array", {"X": [array], "I": [i]}, {"Out": [out]})
    return out


@fluid_checks("tensor_array_to_tensor", input=(list, Variable))
def tensor_array_to_tensor(input, axis=1, name=None, use_stack=False):
    """(the array's tensors concatenated, or stacked, along ``axis``; each one's size along it)."""
    helper = LayerHelper("tensor_array_to_tensor", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    index = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        "tensor_array_to_tensor",
        {"X": [input]},
        {"Out": [out], "OutIndex": [index]},
        {"axis": axis, "use_stack": use_stack},
    )
    return out, index


def array_length(array):
    if not isinstance(array, Variable) or array.type != VarType.LOD_TENSOR_ARRAY:
        raise TypeError(
            f"array_length: array must be a tensor array variable, got {type(array).__name__}"
            + (f" '{array.name}' of type {array.type}" if isinstance(array, Variable) else "")
        )
    helper = LayerHelper("array_length")
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("lod_array_length", {"X": [array]}, {"Out": [out]})
    return out
