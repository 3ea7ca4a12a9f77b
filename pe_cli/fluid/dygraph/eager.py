"""Eager execution for Fluid's op tests: an op appended to an EagerBlock runs at once, by its kernels,
as ``fluid.op.Operator`` runs one op on a scope; ``backward()`` appends the gradient ops of the ops
so recorded through the registry's gradient makers (pe's autodiff), each of which runs as it is
appended. Values live in the program's own Scope."""
import numpy as np

from ...executor import Scope
from ...framework import unique_name
from ...framework.program import Block, Program
from ...framework.variable import Variable
from ...layers.reduction import reduce_sum
from ...ops.registry import grad_var_name
from ...training.backward import append_backward
from ..op import Operator


class EagerVariable(Variable):
    """A variable of an eager program: its value is in the program's scope at once."""

    def value(self):
        """The scope variable holding the value (``.get_tensor()``)."""
        return self.block.program.scope.var(self.name)

    def numpy(self):
        return np.array(self.value().get_tensor())

    @property
    def lod_level(self):
        """The levels of its value's LoD once it has one (a test sets the LoD after making the variable),
        else the declared level."""
        var = self.block.program.scope.find_var(self.name)
        tensor = var.get_tensor() if var is not None else None
        lod = tensor.lod() if tensor is not None and tensor._array is not None else None
        return len(lod) if lod else self._lod_level

    @lod_level.setter
    def lod_level(self, level):
        self._lod_level = level

    def backward(self):
        """Appends, and so runs, the gradient ops of the ops that led to this variable. One of more than
        one value starts from a gradient of ones, as Fluid's dygraph does (the gradients of its sum)."""
        loss = self if int(np.prod(self.shape or (1,))) == 1 else reduce_sum(self)
        append_backward(loss, parameter_list=[])

    def gradient(self):
        """The gradient of this variable as an ndarray after ``backward()`` (None where it got none)."""
        var = self.block.program.scope.find_var(grad_var_name(self.name))
        if var is None or var.get_tensor()._array is None:
            return None
        return np.array(var.get_tensor())


class EagerBlock(Block):
    def create_var(self, name=None, **kwargs):
        name = name or unique_name.generate("_generated_var")
        if name in self.vars:
            return super().create_var(name, **kwargs)
        kwargs.pop("type", None)
        var = self.vars[name] = EagerVariable(self, name=name, **kwargs)
        return var

    def variable_of(self, array, name=None):
        """A new variable holding ``array`` (stop_gradient True)."""
        var = self.create_var(name=name or unique_name.generate("generated_tensor"), shape=array.shape,
                              dtype=array.dtype, stop_gradient=True)
        var.value().get_tensor().set(array)
        return var

    def append_op(self, type=None, inputs=None, outputs=None, attrs=None, role=None):
        op = super().append_op(type, inputs, outputs, {k: v for k, v in (attrs or {}).items() if v is not None}, role)
        return self._run(op)

    def _insert_op(self, index, type, inputs=None, outputs=None, attrs=None, role=None):
        """An op inserted (an initializer's, prepended to the startup program) runs at once too."""
        return self._run(super()._insert_op(index, type, inputs, outputs, attrs, role))

    def _run(self, op):
        slots = dict(op.inputs, **op.outputs)
        Operator(op.type, **{k: v for k, v in op.attrs.items() if k not in slots}, **slots).run(
            self.program.scope, self.program.place)
        for name in op.output_arg_names:
            array = self.program.scope.find_var(name).get_tensor()._array
            if array is not None and name in self.vars:
                self.vars[name].shape = tuple(array.shape)
        return op


class EagerProgram(Program):
    def __init__(self, place, scope=None):
        super().__init__()
        self.blocks = [EagerBlock(self, 0)]
        self.place = place
        self.scope = Scope() if scope is None else scope
        self.grads_of_any_dtype = True      # Fluid's dygraph differentiates int tensors too
