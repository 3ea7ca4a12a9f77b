"""CUDA kernels of the control-flow ops: the block ops run their block through the BlockRunner (its
steps are this device's kernels), tensor arrays compute on the host; the
recurrent op slices and stacks time steps on the host, its steps run on the device."""
from ..cpu import control_flow as _cpu
from ..cpu.control_flow import (array_length, array_read, array_read_grad, array_write,  # noqa: F401
                                array_write_grad, conditional_block, conditional_block_grad, create_array,
                                tensor_array_to_tensor,
                                tensor_array_to_tensor_grad, while_grad, while_loop)
from ..cpu import recurrent_steps as _steps
from . import runtime as rt
from ._host import on_host as _on_host


is_empty = _on_host(_cpu.is_empty)


split_lod_tensor = _on_host(_cpu.split_lod_tensor)
merge_lod_tensor = _on_host(_cpu.merge_lod_tensor)


def recurrent(ins, attrs):
    return _steps.recurrent(ins, attrs, rt.to_device, rt.to_host)


def recurrent_grad(ins, attrs):
    return _steps.recurrent_grad(ins, attrs, rt.to_device, rt.to_host)
