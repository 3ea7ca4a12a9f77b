"""CUDA kernels of the control-flow ops: the block ops run their block through the BlockRunner (its
steps are this device's kernels), tensor arrays compute on the host; the
recurrent op slices and stacks time steps on the host, its steps run on the device. All are the CPU's
kernels (kernels/cpu/control_flow.py), given this device's sum, zeros and copies (HOST_OPS)."""

from ..context import wraps
from . import runtime as rt
from ._host import as_is, host_ops, with_args
from ._launch import zeros_like
from .elementwise import elementwise_add


def _plus(a, b):
    """The sum of two gradients on the device (either may have been made on the host)."""
    return elementwise_add({"X": rt.to_device(a), "Y": rt.to_device(b)}, {"axis": -1})["Out"]


def _mask_on_host(*args):
    """A wrap: the CPU kernel given the Mask on the host (the other inputs stay where they are) and ``args``."""

    def wrap(cpu_kernel):
        def kernel(ins, attrs, *ctx):
            return cpu_kernel(dict(ins, Mask=rt.to_host(ins["Mask"])), attrs, *ctx, *args)

        return wraps(cpu_kernel, kernel)

    return wrap


HOST_OPS = {
    **host_ops(
        "lod_array_length",
        "read_from_array",
        "array_read_grad",
        "write_to_array",
        "array_write_grad",
        "conditional_block",
        "create_array",
        "pylayer",
        "tensor_array_to_tensor",
        "tensor_array_to_tensor_grad",
        "while_loop",
        wrap=as_is,
    ),
    "while_grad": with_args(_plus, zeros_like),
    "conditional_block_grad": with_args(_plus, zeros_like),
    "pylayer_grad": with_args(zeros_like),
    **host_ops("is_empty", "split_lod_tensor", "merge_lod_tensor"),
    **host_ops("select_input", "select_output", "select_output_grad", wrap=_mask_on_host()),
    "select_input_grad": _mask_on_host(zeros_like),
    "get_places": with_args(auto="CUDA"),
    "recurrent": with_args(rt.to_device, rt.to_host),
    "recurrent_grad": with_args(rt.to_device, rt.to_host),
}
