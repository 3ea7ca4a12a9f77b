"""Fluid's ``IfElse``: rows of a batch take one of two branches by a [rows, 1] bool mask.

    ie = IfElse(cond)                       # cond: [batch, 1] bool
    with ie.true_block():
        ie.output(f(ie.input(x)))           # ie.input(x): the rows of x where cond holds
    with ie.false_block():
        ie.output(g(ie.input(x)))
    out, = ie()                             # rows back in the batch's order

Each ``input`` is split once (``split_lod_tensor``, in the enclosing block); each branch is a
``conditional_block`` that runs when its rows are not empty; ``ie()`` merges each output pair
(``merge_lod_tensor``). Gradients flow through all three."""
import contextlib

from ..base.errors import PeError
from .control_flow import conditional
from .helper import LayerHelper
from .creation import assign, fill_constant

__all__ = ["IfElse"]


class IfElse:
    def __init__(self, cond, name=None):
        if cond.dtype != "bool":
            raise PeError(f"IfElse: the condition must be a bool [rows, 1] variable, got {cond.dtype} '{cond.name}'")
        self.cond = cond
        self.helper = LayerHelper("ifelse", name=name)
        self.branch = None                  # True / False inside a block
        self.splits = {}                    # input name -> (rows where cond holds, the other rows)
        self.used = []                      # the split parts the current branch reads
        self.outputs = {True: [], False: []}

    def _block(self, which):
        if self.branch is not None:
            raise PeError("IfElse: a branch cannot open inside another branch")
        if self.outputs[which]:
            raise PeError(f"IfElse: the {'true' if which else 'false'} block can be built once")
        self.branch, self.used, conds = which, [], []
        with conditional(self.helper, conds, scalar=False, before_append=lambda: self._close(conds)):
            yield
        self.branch = None

    def _close(self, conds):
        """In the enclosing block, once the branch is built: it runs when its rows are not empty, and
        its outputs start with no rows (so a branch that does not run still merges)."""
        conds.extend(self.used or [self.cond])
        for var in self.outputs[self.branch]:
            width = [d if d is not None and d >= 0 else 1 for d in list(var.shape or [1])[1:]]
            fill_constant([0] + width, var.dtype, 0.0, out=var)

    @contextlib.contextmanager
    def true_block(self):
        yield from self._block(True)

    @contextlib.contextmanager
    def false_block(self):
        yield from self._block(False)

    def input(self, x):
        if self.branch is None:
            raise PeError("IfElse.input must be called inside true_block() or false_block()")
        if x.name not in self.splits:
            program = self.helper.main_program
            inner, program.current_block_idx = program.current_block_idx, program.current_block().parent_idx
            try:
                t = self.helper.create_variable_for_type_inference(x.dtype)
                f = self.helper.create_variable_for_type_inference(x.dtype)
                self.helper.append_op("split_lod_tensor", {"X": [x], "Mask": [self.cond]},
                                      {"OutTrue": [t], "OutFalse": [f]})
            finally:
                program.current_block_idx = inner
            self.splits[x.name] = (t, f)
        part = self.splits[x.name][0 if self.branch else 1]
        self.used.append(part)
        return part

    def output(self, *outs):
        if self.branch is None:
            raise PeError("IfElse.output must be called inside true_block() or false_block()")
        parent = self.helper.main_program.current_block().parent_block
        for o in outs:
            var = parent.create_var(name=f"{self.helper.name}.{'true' if self.branch else 'false'}_"
                                         f"{len(self.outputs[self.branch])}", dtype=o.dtype, shape=o.shape)
            assign(o, var)
            self.outputs[self.branch].append(var)

    def __call__(self):
        if self.branch is not None:
            raise PeError("IfElse: call ie() after both blocks")
        t, f = self.outputs[True], self.outputs[False]
        if len(t) != len(f):
            raise PeError(f"IfElse: the true block has {len(t)} outputs, the false block {len(f)}")
        merged = []
        for a, b in zip(t, f):
            out = self.helper.create_variable_for_type_inference(a.dtype)
            self.helper.append_op("merge_lod_tensor", {"X": [self.cond], "Mask": [self.cond], "InTrue": [a],
                                                        "InFalse": [b]}, {"Out": [out]})
            merged.append(out)
        return merged

