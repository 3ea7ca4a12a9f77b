"""Fluid's ``IfElse``: rows of a batch take one of two branches by a [rows, 1] bool mask.

    ie = IfElse(cond)                       # cond: [batch, 1] bool
    with ie.true_block():
        ie.output(f(ie.input(x)))           # ie.input(x): the rows of x where cond holds
    with ie.false_block():
        ie.output(g(ie.input(x)))
    out, = ie()                             # rows back in the batch's order

Built as Fluid 1.8.5 builds it: each ``input`` is split once (``split_lod_tensor``, in the enclosing
block); each branch is a ``conditional_block`` whose condition is the mask itself, not scalar (it runs
whenever the batch has rows, on the rows it gets, none included); each output is assigned to a
variable of the enclosing block, and ``ie()`` merges each pair (``merge_lod_tensor``). Gradients flow
through all three."""

import contextlib

from ..framework import unique_name
from ..framework.variable import Variable
from .checks import check_type
from .control_flow import conditional
from .creation import assign
from .helper import LayerHelper

__all__ = ["IfElse"]


class IfElse:
    OUT_IF_ELSE_BLOCKS, IN_IF_ELSE_TRUE_BLOCKS, IN_IF_ELSE_FALSE_BLOCKS = 0, 1, 2

    def __init__(self, cond, name=None):
        check_type(cond, "cond", Variable, "fluid.layers.IfElse")
        check_type(name, "name", (str, type(None)), "fluid.layers.IfElse")
        self.helper = LayerHelper("ifelse", name=name)
        self.cond = cond
        self.input_table = {}
        self.status = IfElse.OUT_IF_ELSE_BLOCKS
        self.output_table = ([], [])  # (false outputs, true outputs)
        self.built = set()

    @contextlib.contextmanager
    def _block(self, is_true):
        if self.status != IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError("You cannot invoke IfElse.block() inside a block")
        if is_true in self.built:
            raise ValueError(f"IfElse: the {'true' if is_true else 'false'} block can be built once")
        self.status = IfElse.IN_IF_ELSE_TRUE_BLOCKS if is_true else IfElse.IN_IF_ELSE_FALSE_BLOCKS
        with conditional(self.helper, [self.cond], scalar=False):
            yield
        self.built.add(is_true)
        if not self.output_table[1 if is_true else 0]:
            raise ValueError("Must set output inside block")
        self.status = IfElse.OUT_IF_ELSE_BLOCKS

    def true_block(self):
        return self._block(True)

    def false_block(self):
        return self._block(False)

    def _parent_block(self):
        return self.helper.main_program.current_block().parent_block

    def input(self, x):
        if self.status == IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError("input must in true/false blocks")
        if id(x) not in self.input_table:
            parent = self._parent_block()
            out_true, out_false = (
                parent.create_var(
                    name=unique_name.generate("ifelse_input" + self.helper.name),
                    dtype=x.dtype,
                    shape=x.shape,
                    lod_level=x.lod_level,
                )
                for _ in range(2)
            )
            parent.append_op(
                "split_lod_tensor",
                {"X": [x], "Mask": [self.cond]},
                {"OutTrue": [out_true], "OutFalse": [out_false]},
                {"level": 0},
            )
            self.input_table[id(x)] = (out_true, out_false)
        out_true, out_false = self.input_table[id(x)]
        return out_true if self.status == IfElse.IN_IF_ELSE_TRUE_BLOCKS else out_false

    def output(self, *outs):
        if self.status == IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError("output can only be invoked in the sub-block")
        table = self.output_table[1 if self.status == IfElse.IN_IF_ELSE_TRUE_BLOCKS else 0]
        parent = self._parent_block()
        for each in outs:
            check_type(each, "each output", Variable, "fluid.layers.IfElse.output")
            outside = parent.create_var(
                name=unique_name.generate(f"{self.helper.name}_output"),
                dtype=each.dtype,
                shape=each.shape,
                lod_level=each.lod_level,
            )
            table.append(outside)
            assign(input=each, output=outside)

    def __call__(self):
        if self.status != IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError("IfElse::__call__ must be out of sub-block")
        false_len, true_len = map(len, self.output_table)
        if false_len == 0 and true_len == 0:
            raise ValueError("Must invoke true_block/false_block before __call__")
        if false_len != true_len and false_len != 0 and true_len != 0:
            raise ValueError("The output side must be same")
        if false_len == 0 or true_len == 0:
            return self.output_table[0 if false_len != 0 else 1]
        merged = []
        for false_var, true_var in zip(*self.output_table):
            out = self.helper.create_variable_for_type_inference(true_var.dtype)
            self.helper.append_op(
                "merge_lod_tensor",
                {"X": [self.cond], "Mask": [self.cond], "InTrue": [true_var], "InFalse": [false_var]},
                {"Out": [out]},
                {"level": 0},
            )
            merged.append(out)
        return merged
