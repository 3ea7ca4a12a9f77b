"""Eager execution for Fluid's op tests: an op appended to an EagerBlock runs at once, by its kernels,
as ``fluid.op.Operator`` runs one op on a scope; ``backward()`` appends the gradient ops of the ops
so recorded through the registry's gradient makers (pe's autodiff), each of which runs as it is
appended. Values live in the program's own Scope. Fluid core's ``VarBase`` and the tracer's
``trace_op``, which Paddle's test_run_program_op.py drives run_program with, are variables of the
eager program and an op appended to it."""

import numpy as np

from ...base.dtypes import VarType
from ...base.selected_rows import SelectedRows
from ...executor import Scope
from ...framework import default_main_program, program_release, unique_name
from ...framework.program import Block, Program
from ...framework.variable import Variable
from ...layers.reduction import reduce_sum
from ...ops.registry import grad_var_name
from ...training.backward import append_backward
from ..standalone_op import Operator


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
        one value starts from a gradient of ones, as Fluid's dygraph does (the gradients of its sum, a
        variable of a name of its own: a test's variables may have the names layers generate)."""
        loss = (
            self
            if int(np.prod(self.shape or (1,))) == 1
            else reduce_sum(self, name=unique_name.generate(f"{self.name}@backward_sum"))
        )
        append_backward(loss, parameter_list=[])

    def gradient(self):
        """The gradient of this variable as an ndarray after ``backward()`` (None where it got none); a
        row-sparse one as Fluid's: (its rows' values, the rows)."""
        var = self.block.program.scope.find_var(grad_var_name(self.name))
        if var is None or var.get_tensor()._array is None:
            return None
        value = var.get_tensor()._array
        if isinstance(value, SelectedRows):
            return np.asarray(value.values), np.asarray(value.rows)
        return np.array(var.get_tensor())

    def retain_grads(self):
        """Paddle 2.6's request to keep a non-leaf variable's gradient: the eager program's scope keeps
        every gradient ``backward()`` computes, so there is nothing to change."""

    def _set_grad_type(self, var_type):
        """Fluid's hint that this variable's gradient is row-sparse (or dense): pe's gradient op decides
        that itself (its kernel's value), so the hint changes nothing."""


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
        var = self.create_var(
            name=name or unique_name.generate("generated_tensor"),
            shape=array.shape,
            dtype=array.dtype,
            stop_gradient=True,
        )
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
        with program_release.reductions_0d(op.zero_dim), program_release.paddle2_meanings(op.paddle2):  # as built
            Operator(op.type, **{k: v for k, v in op.attrs.items() if k not in slots}, **slots).run(
                self.program.scope, self.program.place
            )
        for name in op.output_arg_names:
            array = self.program.scope.find_var(name).get_tensor()._array
            if hasattr(array, "shape") and name in self.vars:  # (not a STEP_SCOPES value)
                self.vars[name].shape = tuple(array.shape)
        return op


class EagerProgram(Program):
    runs_now = True  # its ops run as they are appended

    def __init__(self, place, scope=None):
        super().__init__()
        self.blocks = [EagerBlock(self, 0)]
        self.place = place
        self.scope = Scope() if scope is None else scope
        self.grads_of_any_dtype = True  # Fluid's dygraph differentiates int tensors too


def _eager_block(who):
    program = default_main_program()
    if not isinstance(program, EagerProgram):
        raise RuntimeError(
            f"{who}: pe has dygraph's variables only inside fluid.dygraph.guard() (the eager op "
            f"execution of Paddle's op tests); build a Program and run it with an Executor"
        )
    return program.global_block()


class VarBase(EagerVariable):
    """Fluid core's VarBase inside ``fluid.dygraph.guard()``: a variable of the guard's eager program, in
    Fluid's two forms: ``VarBase(value=ndarray, place=, persistable=, zero_copy=, name=, stop_gradient=)``
    holding the value, and ``VarBase(dtype, dims, name, type, persistable)`` holding none yet."""

    def __init__(self, *args, **kwargs):
        block = _eager_block("core.VarBase")
        value = kwargs.pop("value", args[0] if args and isinstance(args[0], (np.ndarray, list, tuple)) else None)
        var_type = None
        if value is not None:
            value = np.asarray(value)
            name, persistable = kwargs.get("name"), kwargs.get("persistable")
            shape, dtype = value.shape, str(value.dtype)
        else:
            dtype, dims, name, var_type, persistable = (list(args) + [None] * 5)[:5]
            shape, dtype = (list(dims) if dims else None), (dtype or VarType.FP32)
        name = name or unique_name.generate("generated_var")
        super().__init__(
            block,
            type=var_type,
            name=name,
            shape=shape,
            dtype=dtype,
            persistable=bool(persistable),
            stop_gradient=kwargs.get("stop_gradient", -1) != 0,
        )
        block.vars[name] = self
        if value is not None:
            self.value().get_tensor().set(value)


def _names(slots):
    return {
        slot: [v.name for v in (vars if isinstance(vars, (list, tuple)) else [vars])] for slot, vars in slots.items()
    }


class Tracer:
    """Fluid's dygraph tracer as Paddle's op tests call it: ``trace_op(type, inputs, outputs, attrs)``
    runs the op at once on the guard's eager program (a slot: a VarBase or a list of them)."""

    def trace_op(self, type, inputs, outputs, attrs, stop_gradient=False):
        _eager_block("trace_op").append_op(type, _names(inputs), _names(outputs), attrs)

    def _get_kernel_signature(self, type, inputs, outputs, attrs):
        """Paddle 2.6's map from an op's slots and attributes to its phi kernel's arguments, in the
        order of the op's Python API (its op tests line the API's parameters up with it). pe's kernels
        take the op's slots by name and have no such order: a RuntimeError, which Paddle's tests take
        as "no signature" and run the op itself (``trace_op``) instead of its Python API."""
        raise RuntimeError(f"{type}: pe has no phi kernel signatures (its kernels take the op's slots by name)")
