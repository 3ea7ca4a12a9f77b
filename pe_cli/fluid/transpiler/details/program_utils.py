"""``paddle.fluid.transpiler.details.program_utils``: the transpilers' helpers over a block
(``delete_ops``, ``find_op_by_input_arg`` / ``find_op_by_output_arg``) and a program printed as
readable code (``program_to_code``: each block's variables, then one line per op)."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

from ... import core  # noqa: F401
from ...framework import Parameter
from ...unsupported import optional_module, user_paddle
from ....base.dtypes import VarType
from ....framework.operator import AttrType

six = optional_module("six")


def delete_ops(block, ops):
    """Removes ``ops`` from ``block`` (an op not in it is reported and skipped, as Fluid does)."""
    for op in ops:
        try:
            block._remove_op(list(block.ops).index(op))
        except Exception as e:  # noqa: BLE001 -- Fluid prints and goes on
            print(e)


def find_op_by_input_arg(block, arg_name):
    """The index of the first op reading ``arg_name``, or -1."""
    return next((i for i, op in enumerate(block.ops) if arg_name in op.input_arg_names), -1)


def find_op_by_output_arg(block, arg_name, reverse=False):
    """The index of the first (``reverse``: last) op writing ``arg_name``, or -1."""
    order = range(len(block.ops) - 1, -1, -1) if reverse else range(len(block.ops))
    return next((i for i in order if arg_name in block.ops[i].output_arg_names), -1)


def get_indent_space(indent, space_num=4):
    return " " * (indent * space_num)


def variable_to_code(var):
    """``persist trainable parameter w : fluid.<type>.shape[..].astype(<dtype>)``, as Fluid's."""
    if var.type in (VarType.SELECTED_ROWS, VarType.LOD_TENSOR):
        text = f"{var.name} : fluid.{var.type}.shape{tuple(var.shape or ())}.astype({var.dtype})"
    else:
        text = f"{var.name} : fluid.{var.type})"
    if isinstance(var, Parameter):
        text = ("trainable parameter " if var.trainable else "parameter ") + text
    else:
        text = "var " + text
    return "persist " + text if var.persistable else text


def _attr_code(op, name):
    kind = op.attr_type(name)
    if kind == AttrType.BLOCK:
        return f"{name} = block[{getattr(op.attr(name), 'idx', op.attr(name))}]"
    if kind == AttrType.BLOCKS:
        return f"{name} = blocks{[getattr(b, 'idx', b) for b in op.attr(name)]}"
    return f"{name} = {op.attr(name)}"


def op_to_code(op, skip_op_callstack=True):
    """``{Out=['y']} = relu(inputs={X=['x']}, attr = value, ...)``."""
    outputs = "{" + ", ".join(f"{n}={op.output(n)}" for n in op.output_names) + "}"
    inputs = "{" + ", ".join(f"{n}={op.input(n)}" for n in op.input_names) + "}"
    names = [n for n in sorted(op.attr_names) if not (skip_op_callstack and n == "op_callstack")]
    attrs = ", ".join(_attr_code(op, n) for n in names)
    call = f"{op.type}(inputs={inputs}, {attrs})"
    return f"{outputs} = {call}" if outputs != "{}" else call


def block_to_code(block, block_idx, fout=None, skip_op_callstack=False):
    print(f"{{ // block {block_idx}", file=fout)
    names = sorted(block.vars)
    for name in names:
        print(get_indent_space(1) + variable_to_code(block.vars[name]), file=fout)
    if names:
        print("", file=fout)
    for op in block.ops:
        print(get_indent_space(1) + op_to_code(op, skip_op_callstack), file=fout)
    print("}", file=fout)


def program_to_code(prog, fout=None, skip_op_callstack=True):
    """Prints every block of ``prog`` as code (to ``fout``, default stdout)."""
    for idx, block in enumerate(prog.blocks):
        block_to_code(block, idx, fout, skip_op_callstack)


__getattr__ = user_paddle(__name__)
