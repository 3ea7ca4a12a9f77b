"""The bookkeeping of one backward pass over a block: where each variable's gradient contributions
go, their sum before anyone reads the gradient, and the variables they need (used by backward.py
and by grad_op_desc's single-op gradients)."""

from ..framework import OpRole
from ..ops.registry import grad_var_name


class BackwardBuilder:
    """``renames``: the names that ops of the block already write (gradients() of a gradient: a second
    backward's ``x@GRAD`` is not the first one's); a gradient it would name so gets a fresh name."""

    def __init__(self, block, renames=frozenset()):
        self.block = block
        self.start = len(block.ops)  # the ops from here on are this backward's
        self.renames = renames
        self.pending = {}  # var name -> [names of gradient contributions not yet summed]
        self.first_part = {}  # var name -> the part name its first contribution takes once a second comes
        self.counter = 0
        # A name written by several ops (a loop's carried variable) has one gradient per value:
        # ``frozen`` (output name -> its gradient) while an op's grad maker runs.
        self.frozen = {}
        self.targets = {}  # gradient contribution name -> the forward variable it is the gradient of
        self.finished = {}  # name -> its gradient, once the grad ops of the op that wrote it are made

    def has_grad(self, name):
        return name in self.frozen or name in self.pending

    def new_grad_target(self, name):
        """Name for the next contribution to d(loss)/d(name): ``x@GRAD`` for the first; the parts of a
        gradient summed from several are named as Fluid's backward names them,
        ``x@GRAD@RENAME@block<i>@<k>`` from k = 0 (the first part's), so that ``x@GRAD`` is written
        once, by their sum."""
        contributions = self.pending.setdefault(name, [])
        if not contributions:
            target = self._fresh(grad_var_name(name))
        else:
            if len(contributions) == 1:
                self.first_part[name] = self._part_name(name)
            target = self._part_name(name)
        contributions.append(target)
        self._declare(target, name)
        self.targets[target] = name
        return target

    def _part_name(self, name):
        k = 0
        while (
            self.block.has_var(f"{grad_var_name(name)}@RENAME@block{self.block.idx}@{k}")
            or f"{grad_var_name(name)}@RENAME@block{self.block.idx}@{k}" in self.first_part.values()
        ):
            k += 1
        return f"{grad_var_name(name)}@RENAME@block{self.block.idx}@{k}"

    def _rename_first_part(self, name, contributions):
        """The first contribution, written under the gradient's own name by this backward's ops (and
        clipped in place), takes its part name before the sum; one this backward did not write (a
        seed an owning op sets) keeps its name."""
        part, first = self.first_part.pop(name, None), contributions[0]
        users = [op for op in self.block.ops[self.start :] if first in op.input_arg_names + op.output_arg_names]
        if part is None or not users or first in users[0].input_arg_names:
            return  # no op of this backward writes it first: a value set from outside (a seed)
        for op in self.block.ops[self.start :]:
            for slots in (op.inputs, op.outputs):
                for names in slots.values():
                    names[:] = [part if n == first else n for n in names]
        var = self.block.vars.pop(first)  # with what shape inference gave it (row-sparse, ...)
        var.name = part
        self.block.vars[part] = var
        self._declare(first, name)
        self.targets[part] = name
        contributions[0] = part

    def read_grad(self, name):
        """The summed gradient of ``name``; appends the sum op if several contributions wait."""
        if name in self.frozen:
            return self.frozen[name]
        if name not in self.pending:
            return self._zeros_like(name)
        contributions = self.pending[name]
        if len(contributions) > 1:
            self._rename_first_part(name, contributions)
            total = self._fresh(grad_var_name(name))
            self.append("sum", {"X": list(contributions)}, {"Out": [total]})
            self.pending[name] = [total]
        return self.pending[name][0]

    def _zeros_like(self, name):
        target = self._fresh(grad_var_name(name))
        self._declare(target, name)
        self.append("fill_zeros_like", {"X": [name]}, {"Out": [target]})
        self.pending[name] = [target]
        return target

    def _fresh(self, name):
        """``name``, or where an op of the block wrote it before this backward, a new name (as Fluid's
        name@RENAME@block<i>@<k>)."""
        if name not in self.renames:
            return name
        k = 0
        while self.block.has_var(f"{name}@RENAME@block{self.block.idx}@{k}"):
            k += 1
        return f"{name}@RENAME@block{self.block.idx}@{k}"

    def scratch_name(self, fwd):
        self.counter += 1
        return f"{fwd.type}@GRAD@DISCARD@{self.counter}"

    def temp_var(self, like, suffix):
        """A new variable (a name no earlier backward of the block took: gradients() of gradients)."""
        self.counter += 1
        while self.block.has_var(f"{like}@GRAD@{suffix}@{self.counter}"):
            self.counter += 1
        name = f"{like}@GRAD@{suffix}@{self.counter}"
        self._declare(name, like)
        return name

    def _declare(self, grad_name, fwd_name):
        fwd = self.block.var(fwd_name)
        self.block.create_var(name=grad_name, shape=fwd.shape, dtype=fwd.dtype, lod_level=fwd.lod_level)

    def append(self, type, inputs, outputs, attrs=None):
        for names in outputs.values():
            for n in names:
                if not self.block.has_var(n):
                    self.block.create_var(name=n)
        return self.block.append_op(type, inputs, outputs, attrs or {}, role=OpRole.Backward)
