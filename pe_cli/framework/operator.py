"""Operator: one op in a Block, as plain data (type, named input/output slots, attributes)."""

from ..base.dtypes import VarType
from ..base.errors import ArgumentTypeError
from ..ops import registry
from .op_desc import OpDesc
from .variable import Variable


class AttrType:
    """Fluid's attribute types (``core.AttrType``), as ``Operator.attr_type`` reports them."""

    INT, FLOAT, STRING, INTS, FLOATS, STRINGS, BOOLEAN, BOOLEANS, BLOCK, LONG, BLOCKS, LONGS = range(12)


def attr_type_of(value):
    """The AttrType of an attribute value (ints that do not fit 32 bits are LONG)."""
    if isinstance(value, bool):
        return AttrType.BOOLEAN
    if isinstance(value, int):
        return AttrType.INT if -(2**31) <= value < 2**31 else AttrType.LONG
    if isinstance(value, float):
        return AttrType.FLOAT
    if isinstance(value, str):
        return AttrType.STRING
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, bool) for v in value):
            return AttrType.BOOLEANS
        if value and all(isinstance(v, int) for v in value):
            return AttrType.INTS
        if value and all(isinstance(v, float) for v in value):
            return AttrType.FLOATS
        if value and all(hasattr(v, "ops") for v in value):
            return AttrType.BLOCKS
        return AttrType.STRINGS if all(isinstance(v, str) for v in value) else AttrType.INTS
    return AttrType.BLOCK if hasattr(value, "ops") else AttrType.STRING


class _VarName(str):
    """An attribute given by a Variable, in an op's text: ``Var[name]``, as Paddle's."""

    def __repr__(self):
        return f"Var[{self}]"


class _VarNames(list):
    """An attribute given by a list of Variables, in an op's text: ``Vars[a, b]``, as Paddle's."""

    def __repr__(self):
        return f"Vars[{', '.join(self)}]"


class OpRole:
    """Fluid's op roles; ``Loss`` is a flag or-ed onto the role of the op that makes the loss."""

    Forward, Backward, Optimize, LRSched, Loss = 0, 1, 2, 16, 256

    @staticmethod
    def name(role):
        base = {0: "forward", 1: "backward", 2: "optimize", 16: "lr_sched"}.get(role & ~OpRole.Loss, "forward")
        return base + ("+loss" if role & OpRole.Loss else "")


class Operator:
    def __init__(self, block, type, inputs, outputs, attrs, role=OpRole.Forward, source=None, layer=None):
        self.block = block
        self.type = type
        self.inputs = inputs  # slot -> [variable names]
        self.outputs = outputs  # slot -> [variable names]
        self.attrs = attrs
        self.role = role
        self.source = source  # where it was built: "train.py:40" or "lenet.yaml:12 layers[3] fc1"
        self.layer = layer  # the layer that appended it: "fc_0"
        # Where a seeded random op draws from (executor/plan.py rng_seed), when not its position: an
        # initializer's op goes first in its block, as Fluid puts it, yet draws as if appended.
        self.seed_position = None
        self.attr_vars = {}  # attribute -> the input slot of the Variable that gives it (attribute_variables.py)
        # the index of the forward op a grad op differentiates, among the ops given to the backward that
        # appended it (training/backward.py): a loop's gradient reads the values its forward op saw
        self.fwd_index = None
        # a reduction to one value gives 0-D ([]), not Fluid's [1] (framework/program_release.mark_zero_dim:
        # a paddle.* call in a Paddle 2.x program); its shape inference and kernels read it
        self.zero_dim = False
        # the op computes Paddle 2.x's meaning where it differs from Fluid 1.8's (trait paddle2_semantics:
        # framework/program_release.mark_paddle2); its shape inference and kernels read it
        self.paddle2 = False
        # what the op's kernel keeps from run to run (print's count of prints, as Fluid's op object
        # keeps it; kernels/context.py op_state): never an attribute, never saved
        self.run_state = {}

    def input(self, slot):
        return list(self.inputs.get(slot, []))

    def output(self, slot):
        return list(self.outputs.get(slot, []))

    @property
    def input_names(self):
        return list(self.inputs)

    @property
    def output_names(self):
        return list(self.outputs)

    @property
    def input_arg_names(self):
        return [n for names in self.inputs.values() for n in names]

    @property
    def output_arg_names(self):
        return [n for names in self.outputs.values() for n in names]

    def attr(self, name):
        return self.attrs[name]

    def row_sparse_outputs(self):
        """The output slots whose variable is declared SELECTED_ROWS (load reads a SelectedRows file into one)."""
        find = self.block._find_var_recursive
        return frozenset(s for s, names in self.outputs.items() if names and _row_sparse(find(names[0])))

    def all_attrs(self):
        """The attributes; one given by a Variable is that Variable (by Variables: their list; Paddle 2.x's)."""
        find = self.block._find_var_recursive
        given = {
            a: [find(n) for n in self.inputs[s]] if self._listed(s) else find(self.inputs[s][0])
            for a, s in self.attr_vars.items()
            if self.inputs.get(s)
        }
        return dict(self.attrs, **given)

    def _listed(self, slot):
        """Whether the attribute ``slot`` gives is a list of Variables (a duplicable slot: Paddle's VARS)."""
        return registry.get(self.type).input_slot(slot).duplicable

    def attr_type(self, name):
        return attr_type_of(self.attrs[name])

    @property
    def idx(self):
        """This op's index in its block."""
        return next(i for i, op in enumerate(self.block.ops) if op is self)

    @property
    def desc(self):
        """Fluid's OpDesc face of this op: ``type()``, ``attr(name)``, ``input(slot)``, ``output(slot)``..."""
        return OpDesc(self)

    def has_attr(self, name):
        return name in self.attrs

    def _is_optimize_op(self):
        """True for an op of the optimizer (its role has the Optimize bit, as Fluid tests it)."""
        return bool(self.role & OpRole.Optimize)

    def _set_attr(self, name, value):
        self.attrs[name] = value

    def _rename_input(self, old, new):
        """Every input slot's ``old`` name becomes ``new`` (Fluid's Operator._rename_input)."""
        for names in self.inputs.values():
            names[:] = [new if n == old else n for n in names]
        self._renamed()

    def _rename_output(self, old, new):
        """Every output slot's ``old`` name becomes ``new`` (Fluid's Operator._rename_output)."""
        for names in self.outputs.values():
            names[:] = [new if n == old else n for n in names]
        self._renamed()

    def _renamed(self):
        if self.block is not None:  # a plan made of the program before is out of date
            self.block.program._bump()

    @property
    def attr_names(self):
        return list(self.attrs)

    def clone_into(self, block):
        op = Operator(
            block,
            self.type,
            {k: list(v) for k, v in self.inputs.items()},
            {k: list(v) for k, v in self.outputs.items()},
            dict(self.attrs),
            self.role,
            self.source,
            self.layer,
        )
        op.seed_position = self.seed_position
        op.attr_vars = dict(self.attr_vars)
        op.fwd_index = self.fwd_index
        op.zero_dim = self.zero_dim
        op.paddle2 = self.paddle2
        op.run_state = self.run_state  # (a clone prints as many times in all as its op: first_n)
        return op

    def describe(self):
        """Short identification for error messages: ``op mul (fc_0, built at train.py:40)``."""
        layer = f" of layer '{self.layer}'" if self.layer else ""
        where = f" built at {self.source}" if self.source else ""
        return f"op '{self.type}'{layer}{where}"

    def to_string(self):
        def slots(d):
            return ", ".join(f"{k}=[{', '.join(v)}]" for k, v in d.items())

        shown = dict(
            self.attrs,
            **{
                a: _VarNames(self.inputs[s]) if self._listed(s) else _VarName(self.inputs[s][0])
                for a, s in self.attr_vars.items()
                if self.inputs.get(s)
            },
        )
        attrs = ", ".join(f"{k}={v!r}" for k, v in sorted(shown.items()) if not k.startswith("_"))
        where = f"  # {self.source}" if self.source else ""
        return (
            f"{{{slots(self.outputs)}}} = {self.type}({slots(self.inputs)})"
            f"{' {' + attrs + '}' if attrs else ''} [{OpRole.name(self.role)}]{where}"
        )

    __str__ = to_string

    def __repr__(self):
        return f"<Operator {self.type}>"


OpDesc.new_operator = staticmethod(lambda: Operator(None, None, {}, {}, {}))


def input_slot_names(op_type, slots):
    """``slot_names`` of an op's inputs, each a Variable or a variable's name, else a TypeError (Fluid's
    Operator, whatever layer appends the op: a numpy array or a number given for a tensor)."""
    for slot, value in (slots or {}).items():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is not None and not isinstance(item, (str, bytes, Variable)):
                raise ArgumentTypeError(
                    f"op '{op_type}': input {slot} must be a Variable (or a variable's name), got {type(item).__name__}"
                )
    return slot_names(slots)


def slot_names(slots):
    """{slot: Variable | name | [Variable | name]} -> {slot: [name]}"""
    out = {}
    for slot, value in (slots or {}).items():
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        out[slot] = [v if isinstance(v, str) else v.decode() if isinstance(v, bytes) else v.name for v in values]
    return out


def _row_sparse(var):
    return getattr(var, "type", None) == VarType.SELECTED_ROWS
