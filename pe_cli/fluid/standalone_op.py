"""The Operator of ``paddle.fluid.op`` (and ``core.Operator``): ``Operator(type, **slots_and_attrs)``, one op run by itself on a scope, as
Fluid's op tests drive an op (``op.run(scope, place)``), and the op protos it is described by.

An op's slots and attributes come from pe's op registry (the one source of truth): ``Operator``
takes each slot as a variable name or a list of names and every other keyword as an attribute.
``run`` builds a one-op program over the scope's current values (rebuilt when their shapes or
dtypes change) and runs it with pe's Executor; what the op writes lands in the scope.
"""

import numpy as np

from ..base.dtypes import VarType
from ..base.errors import PeError, unsupported
from ..base.selected_rows import SelectedRows
from ..executor import Executor
from ..framework import Program
from ..ops import registry
from .op_proto_messages import OpDescCreationMethod, desc_slots_and_attrs, get_all_op_protos  # noqa: F401


def _as_names(value):
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


class Operator:
    """``Operator('mul', X='x', Y='y', Out='out', x_num_col_dims=1)``: slots from the registry's
    definition of the type, everything else an attribute."""

    def __init__(self, type, **kwargs):
        opdef = registry.get(type)
        self._type = type
        in_slots = {s.name for s in opdef.inputs}
        out_slots = {s.name for s in opdef.outputs}
        self.inputs, self.outputs, self.attrs = {}, {}, {}
        for key, value in kwargs.items():
            if key in in_slots:
                self.inputs[key] = _as_names(value)
            elif key in out_slots:
                self.outputs[key] = _as_names(value)
            elif key in opdef.attrs or key in registry.COMMON_ATTRS:
                self.attrs[key] = value
            # else: as Fluid's Operator, a keyword that is none of the op's slots and attributes is dropped
        self._program_key = None
        self._program = None
        self._executors = {}

    @classmethod
    def create(cls, desc_bytes):
        """Fluid core's ``Operator.create(op_desc.SerializeToString())``: the op of an OpDesc message."""
        type, kwargs = desc_slots_and_attrs(desc_bytes)
        return cls(type, **kwargs)

    def type(self):
        return self._type

    def __str__(self):
        """Fluid's ``Op(sum), inputs:{X[a, b]}, outputs:{Out[z]}.`` (slots by name)."""

        def slots(d):
            return ", ".join(f"{k}[{', '.join(v)}]" for k, v in sorted(d.items()))

        return f"Op({self._type}), inputs:{{{slots(self.inputs)}}}, outputs:{{{slots(self.outputs)}}}."

    def input(self, slot):
        return list(self.inputs.get(slot, []))

    def output(self, slot):
        return list(self.outputs.get(slot, []))

    def input_names(self):
        return list(self.inputs)

    def output_names(self):
        return list(self.outputs)

    def _signature(self, scope):
        """Shapes, dtypes and LoD levels of the inputs the scope holds now (the program's key; numpy's dtype
        objects: their names cost more than the rest of a small op's run)."""
        sig = []
        for slot, names in sorted(self.inputs.items()):
            for n in names:
                var = scope.find_var(n)
                tensor = None if var is None else var.get_tensor()
                if tensor is None or tensor._array is None:
                    sig.append((n, None, None, 0, False))
                elif isinstance(tensor._array, list):  # a LoDTensorArray (get_lod_tensor_array), or scopes
                    first = next((a for a in tensor._array if a is not None), None)
                    kind = "array" if first is None or hasattr(first, "dtype") else "scopes"  # STEP_SCOPES
                    dtype = np.dtype("float32") if first is None else getattr(first, "dtype", None)
                    sig.append((n, (), dtype, 0, kind))
                else:
                    sig.append(
                        (
                            n,
                            tuple(tensor._array.shape),
                            tensor._array.dtype,
                            len(tensor.lod()),
                            isinstance(tensor._array, SelectedRows),
                        )
                    )
        return tuple(sig)

    def _build(self, signature):
        program = Program()
        program.runs_now = True  # one op run on a scope at once, in static and dygraph mode alike
        block = program.global_block()
        for name, shape, dtype, lod_level, sparse in signature:
            if sparse in ("array", "scopes"):
                block.create_var(
                    name=name,
                    dtype=str(dtype or "float32"),
                    persistable=True,
                    type=VarType.LOD_TENSOR_ARRAY if sparse == "array" else VarType.STEP_SCOPES,
                )
                continue
            block.create_var(
                name=name,
                shape=shape,
                dtype=str(dtype),
                lod_level=lod_level,
                persistable=True,
                type=VarType.SELECTED_ROWS if sparse else None,
            )
        for names in self.outputs.values():
            for n in names:
                if not block.has_var(n):
                    block.create_var(name=n, persistable=True)
        block.append_op(
            self._type,
            {k: list(v) for k, v in self.inputs.items()},
            {k: list(v) for k, v in self.outputs.items()},
            dict(self.attrs),
        )
        return program

    def run(self, scope, place):
        """Runs the op once on ``place``, reading its inputs from ``scope`` and writing its outputs there."""
        signature = self._signature(scope)
        missing = [name for name, shape, *_ in signature if shape is None]
        if missing:
            raise PeError(f"Operator '{self._type}': the scope holds no value for input(s) {missing}")
        if signature != self._program_key:
            self._program_key, self._program = signature, self._build(signature)
        executor = self._executors.get(str(place))
        if executor is None:
            executor = self._executors[str(place)] = Executor(place)
        executor.run(self._program, scope=scope)

    @staticmethod
    def get_op_inputs(type):
        """[(slot name, duplicable)] of the type's inputs."""
        return [(s.name, s.duplicable) for s in registry.get(type).inputs]

    @staticmethod
    def get_op_outputs(type):
        """[(slot name, duplicable)] of the type's outputs."""
        return [(s.name, s.duplicable) for s in registry.get(type).outputs]

    @staticmethod
    def get_op_attr_names(type):
        return list(registry.get(type).attrs)


# Fluid 1.8's op.py keeps these 0.x factories, which build through core classes its core no longer has.
_GONE = "Fluid 1.8's core has no such op class to create (a Fluid 0.x leftover); build the loop with fluid.layers"
RecurrentOp = unsupported("paddle.fluid.op.RecurrentOp", _GONE + " (StaticRNN)")
DynamicRecurrentOp = unsupported("paddle.fluid.op.DynamicRecurrentOp", _GONE + " (DynamicRNN)")
CondOp = unsupported("paddle.fluid.op.CondOp", _GONE + " (cond, IfElse)")
