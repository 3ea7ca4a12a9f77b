"""The tensor ops the weight-averaging optimizers (averaging.py) append outside any layer: assign,
cast, scale, the elementwise binaries and fill_constant, each appended to the current block as
Fluid's layer of that name appends it (same op, attributes and variable names: ``scale_3``'s output
is ``scale_3.tmp_0``), so that pe_cli.training needs nothing from pe_cli.layers, the floor above it."""

from ..framework import default_main_program, unique_name
from ..framework.source import layer_guard
from .optimizer_base import persistable_var


def _append(op_type, inputs, attrs, dtype, out=None, stop_gradient=False):
    name = unique_name.generate(op_type)
    block = default_main_program().current_block()
    if out is None:
        out = block.create_var(name=unique_name.generate(f"{name}.tmp"), dtype=dtype, stop_gradient=stop_gradient)
    with layer_guard(name):
        block.append_op(op_type, inputs, {"Out": [out]}, attrs)
    return out


def assign(x, out=None):
    """A copy of ``x`` (into ``out`` when given)."""
    return _append("assign", {"X": [x]}, {}, x.dtype, out)


def cast(x, dtype):
    return _append("cast", {"X": [x]}, {"in_dtype": x.dtype, "out_dtype": dtype}, dtype)


def scale(x, scale=1.0, bias=0.0):  # noqa: A002 -- Fluid's argument names
    return _append("scale", {"X": [x]}, {"scale": float(scale), "bias": float(bias), "bias_after_scale": True}, x.dtype)


def elementwise(op_type, x, y):
    """``op_type`` (elementwise_add, ..._min) of x and y, y aligned to the end of x."""
    return _append(op_type, {"X": [x], "Y": [y]}, {"axis": -1}, x.dtype)


def fill_constant(shape, dtype, value):
    out = _append(
        "fill_constant",
        {},
        {"dtype": dtype, "force_cpu": False, "shape": list(shape), "value": float(value)},
        dtype,
        stop_gradient=True,
    )
    out.stop_gradient = True
    return out


def add(x, y):
    return elementwise("elementwise_add", x, y)


def mul(x, y):
    return elementwise("elementwise_mul", x, y)


def div(x, y):
    return elementwise("elementwise_div", x, y)


def maximum(x, y):
    return elementwise("elementwise_max", x, y)


def minimum(x, y):
    return elementwise("elementwise_min", x, y)


def power(x, y):
    return elementwise("elementwise_pow", x, y)


def global_var(shape, value, dtype, name):
    """A persistable variable ``name`` of the main program's global block, filled with ``value`` by
    the startup program (Fluid's ``layers.create_global_var(..., persistable=True)``)."""
    return persistable_var(default_main_program(), name, list(shape), dtype, value)
