"""CUDA kernels of the control-flow ops: the block ops run their block through the BlockRunner (its
steps are this device's kernels), tensor arrays compute on the host; the
recurrent op slices and stacks time steps on the host, its steps run on the device."""

from ..cpu import control_flow as _cpu
from ..cpu.control_flow import (
    lod_array_length,
    read_from_array,
    array_read_grad,
    write_to_array,  # noqa: F401
    array_write_grad,
    conditional_block,
    create_array,
    pylayer,
    tensor_array_to_tensor,
    tensor_array_to_tensor_grad,
    while_loop,
)
from ..cpu import recurrent_steps as _steps
from . import runtime as rt
from ._host import on_host as _on_host
from ._launch import zeros as _zeros
from .elementwise import elementwise_add


def _plus(a, b):
    """The sum of two gradients on the device (either may have been made on the host)."""
    return elementwise_add({"X": rt.to_device(a), "Y": rt.to_device(b)}, {"axis": -1})["Out"]


def _zeros_like(x):
    return _zeros(x.shape, x.dtype)


def while_grad(ins, attrs, ctx):
    return _cpu.while_grad(ins, attrs, ctx, _plus, _zeros_like)


def conditional_block_grad(ins, attrs, ctx):
    return _cpu.conditional_block_grad(ins, attrs, ctx, _plus, _zeros_like)


def pylayer_grad(ins, attrs, ctx):
    return _cpu.pylayer_grad(ins, attrs, ctx, _zeros_like)


is_empty = _on_host(_cpu.is_empty)


def _host_mask(ins):
    return dict(ins, Mask=rt.to_host(ins["Mask"]))


def select_input(ins, attrs):
    return _cpu.select_input(_host_mask(ins), attrs)


def select_output(ins, attrs, ctx):
    return _cpu.select_output(_host_mask(ins), attrs, ctx)


def select_input_grad(ins, attrs):
    return _cpu.select_input_grad(_host_mask(ins), attrs, _zeros_like)


def select_output_grad(ins, attrs):
    return _cpu.select_output_grad(_host_mask(ins), attrs)


def get_places(ins, attrs):
    return _cpu.get_places(ins, attrs, auto="CUDA")


split_lod_tensor = _on_host(_cpu.split_lod_tensor)
merge_lod_tensor = _on_host(_cpu.merge_lod_tensor)


def recurrent(ins, attrs, ctx):
    return _steps.recurrent(ins, attrs, ctx, rt.to_device, rt.to_host)


def recurrent_grad(ins, attrs, ctx):
    return _steps.recurrent_grad(ins, attrs, ctx, rt.to_device, rt.to_host)
