"""``op.desc``: Fluid's OpDesc face of an Operator. It is a view: every call reads or changes the
Operator itself, so an op built at desc level (``block.desc.append_op()`` then ``set_type``,
``set_input``, ...) is an op of the block like any other, and two views of one op are equal."""

from ..ops import registry
from .desc_view import DescView


# the attributes Fluid gives every op (its OpProtoAndCheckerMaker's)
GENERATED_ATTRS = ("op_role", "op_role_var", "op_namescope", "op_callstack", "op_device")


class OpDesc(DescView):
    """The desc-level methods of Fluid's core.OpDesc over one Operator; ``OpDesc()``, as Fluid's
    ``core.OpDesc()``, is the desc of a new op of no block and no type yet."""

    # operator.py sets it: an Operator of no block (OpDesc imports no Operator)
    new_operator = None

    def __init__(self, viewed=None):
        super().__init__(self.new_operator() if viewed is None else viewed)

    @property
    def _op(self):
        return self._viewed

    def _changed(self):
        if self._op.block is not None:
            self._op.block.program._bump()

    # -- type and slots ------------------------------------------------------------------------
    def type(self):
        return self._op.type

    def set_type(self, type):
        self._op.type = type
        self._changed()

    def input(self, slot):
        return self._op.input(slot)

    def output(self, slot):
        return self._op.output(slot)

    def set_input(self, slot, names):
        self._op.inputs[slot] = [str(n) for n in names]
        self._changed()

    def set_output(self, slot, names):
        self._op.outputs[slot] = [str(n) for n in names]
        self._changed()

    def inputs(self):
        return {k: list(v) for k, v in self._op.inputs.items()}

    def outputs(self):
        return {k: list(v) for k, v in self._op.outputs.items()}

    def input_names(self):
        return self._op.input_names

    def output_names(self):
        return self._op.output_names

    def input_arg_names(self):
        return self._op.input_arg_names

    def output_arg_names(self):
        return self._op.output_arg_names

    def _rename_input(self, old, new):
        self._op._rename_input(old, new)

    def _rename_output(self, old, new):
        self._op._rename_output(old, new)

    # -- attributes ----------------------------------------------------------------------------
    # Fluid keeps an op's role in its attribute ``op_role``; pe in ``Operator.role``, which the desc reads
    # and writes under that name.
    def attr(self, name):
        """The attribute's value; one of the attributes Fluid gives every op (op_device, op_role, ...) has
        its default where the op does not set it, as Fluid's."""
        if name == "op_role":
            return int(self._op.role)
        if name in self._op.attrs:
            return self._op.attrs[name]
        return "/" if name == "op_namescope" else registry.COMMON_ATTRS.get(name)

    def has_attr(self, name):
        """Whether the op has the attribute; every op has those Fluid generates for all (its
        ``generated_op_attr_names``: op_role, op_role_var, op_namescope, op_callstack, op_device)."""
        return name in self._op.attrs or name in GENERATED_ATTRS

    def attr_names(self):
        return list(self._op.attrs)

    def attr_type(self, name):
        return self._op.attr_type(name)

    def _set_attr(self, name, value):
        if name == "op_role":
            self._op.role = int(value)
        else:
            self._op._set_attr(name, value)
        self._changed()

    set_attr = _set_attr

    def remove_attr(self, name):
        self._op.attrs.pop(name, None)
        self._changed()

    def set_block_attr(self, name, block_desc):
        """A sub-block attribute: pe keeps the block's index, as its control-flow ops do."""
        self._set_attr(name, block_desc.id)

    def set_blocks_attr(self, name, block_descs):
        self._set_attr(name, [b.id for b in block_descs])

    def _block_attr_id(self, name):
        return int(self._op.attrs[name])

    def _blocks_attr_ids(self, name):
        return [int(i) for i in self._op.attrs[name]]

    # -- what the registry knows ---------------------------------------------------------------
    def check_attrs(self):
        """Checks the attributes against the op's definition and fills the defaults it lacks."""
        registry.check_attrs(self._op)

    def infer_shape(self, block_desc=None):
        """Gives the op's outputs their shapes and dtypes by the registry's shape inference, in the
        block ``block_desc`` stands for (default: the op's own block)."""
        block = self._op.block if block_desc is None else block_desc._block
        op = self._op if self._op.block is block else self._op.clone_into(block)
        registry.infer_shape(op)
        block.program._bump()

    def infer_var_type(self, block_desc=None):
        """Nothing to do: pe's shape inference sets the outputs' types with their shapes."""

    def copy_from(self, other):
        """Makes this op a copy of ``other``'s type, slots and attributes."""
        src = other._op
        self._op.type = src.type
        self._op.inputs = {k: list(v) for k, v in src.inputs.items()}
        self._op.outputs = {k: list(v) for k, v in src.outputs.items()}
        self._op.attrs = dict(src.attrs)
        self._op.role = src.role
        if self._op.block is not None:
            for name in self._op.output_arg_names:
                if name in self._op.block.vars:
                    self._op.block.vars[name].op = self._op
        self._changed()

    def block(self):
        return None if self._op.block is None else self._op.block.desc

    def set_is_target(self, is_target):
        self._op.is_target = bool(is_target)
