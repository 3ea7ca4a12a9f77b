"""``fluid.debugger``: a program as readable code (``pprint_program_codes``) and a block as a
graphviz drawing (``draw_block_graphviz``). The text and the DOT are pe's (pe_cli/run/graph.py,
the ones ``pe graph`` prints). ``repr_var`` and ``repr_op`` read Fluid's VarDesc and OpDesc
messages (framework_pb2's) as Fluid's do; ``prepare_fast_nan_inf_debug`` turns on pe's check of every
op's outputs, and ``run_fast_nan_inf_debug`` runs a program and, when it fails, saves its
persistables into ``./core<N>.pdckpt``."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

import os  # noqa: F401
import random
import re  # noqa: F401
import shutil
import subprocess
import sys  # noqa: F401

from . import core, io, unique_name  # noqa: F401
from .flags import set_flags
from .framework import Program, Variable, default_main_program  # noqa: F401
from .graphviz import GraphPreviewGenerator  # noqa: F401
from .layer_helper import LayerHelper  # noqa: F401
from .proto import framework_messages as framework_pb2
from .unsupported import optional_module
from ..base.atomic_file import atomic_write
from ..run.graph import program_dot, program_text

six = optional_module("six")
text_format = optional_module("google.protobuf.text_format", "protobuf")
_DTYPES = ["bool", "int16", "int32", "int64", "float16", "float32", "float64"]
reprtpl = "{ttype} {name} ({reprs})"

__all__ = ["pprint_program_codes", "pprint_block_codes", "draw_block_graphviz"]


def pprint_program_codes(program_desc):
    """The program as text: its feeds, parameters and one line per op (a block an op runs nested
    under it)."""
    program = getattr(program_desc, "_program", program_desc)
    return program_text(program)


def pprint_block_codes(block_desc, show_backward=False):
    """One line per op of the block; without ``show_backward``, its gradient ops left out."""
    lines = [
        line
        for line in program_text(block_desc.program).splitlines()
        if show_backward or "@GRAD" not in line and "_grad(" not in line
    ]
    return "\n".join(lines) + "\n"


def draw_block_graphviz(block, highlights=None, path="./temp.dot"):
    """Writes the block's program as a DOT file at ``path`` and, where graphviz's ``dot`` is
    installed, draws it next to it as a PDF (Fluid's ``path[:-3] + "pdf"``). ``highlights``: names
    of variables the caller cares about (accepted; pe's drawing marks none)."""
    atomic_write(path, program_dot(block.program, title=f"block {block.idx}"))
    dot = shutil.which("dot")
    if dot is not None:
        subprocess.run([dot, "-Tpdf", path, "-o", path[:-3] + "pdf"], check=False, capture_output=True)


def repr_data_type(type):  # noqa: A002 -- Fluid's argument name
    return _DTYPES[type]


def repr_tensor(proto):
    return f"tensor(type={_DTYPES[int(proto.data_type)]}, shape={list(proto.dims)})"


def repr_lodtensor(proto):
    if proto.type.type != framework_pb2.VarType.LOD_TENSOR:
        return None
    level, reprs = proto.type.lod_tensor.lod_level, repr_tensor(proto.type.lod_tensor.tensor)
    return reprtpl.format(
        ttype="LoDTensor" if level > 0 else "Tensor",
        name=proto.name,
        reprs=f"level={level}, {reprs}" if level > 0 else reprs,
    )


def repr_selected_rows(proto):
    if proto.type.type != framework_pb2.VarType.SELECTED_ROWS:
        return None
    return reprtpl.format(ttype="SelectedRows", name=proto.name, reprs=repr_tensor(proto.type.selected_rows))


def repr_tensor_array(proto):
    if proto.type.type != framework_pb2.VarType.LOD_TENSOR_ARRAY:
        return None
    return reprtpl.format(
        ttype="TensorArray",
        name=proto.name,
        reprs=f"level={proto.type.tensor_array.lod_level}, {repr_tensor(proto.type.lod_tensor.tensor)}",
    )


type_handlers = [repr_lodtensor, repr_selected_rows, repr_tensor_array]


def repr_var(vardesc):
    """A VarDesc message as one line (``Tensor x (tensor(type=float32, shape=[-1, 3]))``)."""
    for handler in type_handlers:
        text = handler(vardesc)
        if text:
            return text
    return None


_ATTR_FIELDS = ["i", "f", "s", "ints", "floats", "strings", "b", "bools", "block_idx", "l"]


def repr_attr(desc):
    """(``key=value``, (key, value)) of an OpDesc.Attr message."""
    value = getattr(desc, _ATTR_FIELDS[desc.type])
    value = list(value) if not isinstance(value, (int, float, str, bytes, bool)) else value
    if desc.name == "dtype":
        value = repr_data_type(value)
    return f"{desc.name}={value}", (desc.name, value)


def _repr_op_fill_constant(optype, inputs, outputs, attrs):
    if optype == "fill_constant":
        return f"{','.join(outputs)} = {attrs['value']} [shape={attrs['shape']}]"
    return None


op_repr_handlers = [_repr_op_fill_constant]


def repr_op(opdesc):
    """An OpDesc message as one line: ``outputs = type(inputs) [attrs]``."""

    def args(a):
        return a[0] if len(a) == 1 else str(list(a))

    inputs = [f"{v.parameter}={args(v.arguments)}" for v in opdesc.inputs]
    outputs = [args(v.arguments) for v in opdesc.outputs]
    pairs = [repr_attr(a) for a in opdesc.attrs]
    for handler in op_repr_handlers:
        text = handler(opdesc.type, inputs, outputs, dict(p for _, p in pairs))
        if text:
            return text
    target = ", is_target" if opdesc.is_target else ""
    return f"{', '.join(outputs)} = {opdesc.type}({', '.join(inputs)}{target}) [{{{','.join(r for r, _ in pairs)}}}]"


def prepare_fast_nan_inf_debug(_program):
    """Fluid appends a sum of every variable for its C++ NaN/Inf check; pe checks every op's outputs
    itself once FLAGS_check_nan_inf is on (the first op making a NaN or Inf is named), which this turns on."""
    set_flags({"FLAGS_check_nan_inf": True})


def run_fast_nan_inf_debug(
    executor,
    program=None,
    feed=None,
    fetch_list=None,
    feed_var_name="feed",
    fetch_var_name="fetch",
    scope=None,
    return_numpy=True,
    use_program_cache=False,
    dump_core=True,
):
    """``executor.run`` of the program; when it raises, the error is printed and the program's
    persistables are saved in ``./core<N>.pdckpt`` (one file) and None is returned, as Fluid does."""
    assert executor is not None
    try:
        return executor.run(
            program=program,
            feed=feed,
            fetch_list=fetch_list,
            feed_var_name=feed_var_name,
            fetch_var_name=fetch_var_name,
            scope=scope,
            return_numpy=return_numpy,
            use_program_cache=use_program_cache,
        )
    except Exception as e:
        print("catch an exception:")
        print(e)
        name = f"core{int(random.random() * 10000)}.pdckpt"
        io.save_persistables(executor, "./", main_program=program, filename=name)
        print(f"dumping a core into ./{name}")
        return None
