"""Fluid 1.8's ``layers.Print`` (``layers.control_flow.Print``): the op ``print`` (ops/printing.py)."""

from ..base.errors import ArgumentValueError
from .helper import LayerHelper
from .checks import check_variable_and_dtype

__all__ = ["Print"]


def Print(
    input,
    first_n=-1,
    message=None,
    summarize=20,
    print_tensor_name=True,
    print_tensor_type=True,
    print_tensor_shape=True,
    print_tensor_lod=True,
    print_phase="both",
):
    """Returns a copy of ``input`` that prints it each time the program computes it (``print_phase``
    'forward', 'backward': its gradient as autodiff passes it back, or 'both'), at most ``first_n``
    times when that is > 0, with ``message`` and the first ``summarize`` values (-1: all)."""
    check_variable_and_dtype(input, "input", ("float32", "float64", "int32", "int64", "bool"), "fluid.layers.Print")
    phase = str(print_phase).upper()
    if phase not in ("FORWARD", "BACKWARD", "BOTH"):
        raise ArgumentValueError(
            f"fluid.layers.Print: print_phase={print_phase!r} must be 'forward', 'backward' or 'both'"
        )
    helper = LayerHelper("print_" + input.name)
    output = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(
        "print",
        {"In": [input]},
        {"Out": [output]},
        {
            "first_n": first_n,
            "summarize": summarize,
            "message": message or "",
            "print_tensor_name": print_tensor_name,
            "print_tensor_type": print_tensor_type,
            "print_tensor_shape": print_tensor_shape,
            "print_tensor_lod": print_tensor_lod,
            "print_phase": phase,
        },
    )
    return output
