"""Block: one block of a Program, its variables and its ops in order. Appending an op goes through the op
registry, which checks slots and attributes and infers output shapes at once (pe_cli/framework/program.py
holds the Program that owns the blocks)."""

# ops sits below framework (it imports only errors and dtypes). Import the module, not its names:
# importing pe_cli.ops.registry first runs this package's __init__ before the registry is done.
from ..base.errors import ArgumentValueError
from ..ops import registry
from . import attribute_variables, device_hint, program_release, static_mode, unique_name
from .operator import Operator, input_slot_names, slot_names
from .program_desc import BlockDesc, block_attr
from .name_scope import current_name_scope
from .source import current_layer, current_source
from .variable import Parameter, Variable


class Block:
    def __init__(self, program, idx, parent_idx=-1):
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.vars = {}
        self.ops = []

    @property
    def desc(self):
        """Fluid's BlockDesc face of this block."""
        return BlockDesc(self)

    # -- variables ---------------------------------------------------------------------------
    def create_var(self, name=None, **kwargs):
        name = name or unique_name.generate("_generated_var")
        if name in self.vars:
            var = self.vars[name]
            for key in ("shape", "dtype", "lod_level", "persistable", "stop_gradient"):
                if kwargs.get(key) is not None and getattr(var, key) is None:
                    setattr(var, key, kwargs[key])
            return var
        var = Variable(self, name=name, **kwargs)
        self.vars[name] = var
        return var

    def create_parameter(self, name, shape, dtype="float32", **kwargs):
        """A Parameter of this block. Given an ``initializer``, its op is appended to this block (as
        Fluid's Block does; layers pass the startup program's block), once: a parameter some op of the
        block already writes is not initialized again."""
        param = Parameter(self, name, shape, dtype, **kwargs)
        self.vars[name] = param
        init = kwargs.get("initializer")
        if init is not None and not any(name in op.output_arg_names for op in self.ops):
            init(param, self)
        return param

    def var(self, name):
        if not isinstance(name, str):
            raise TypeError(f"var() takes a name (str), got {type(name).__name__}")
        block = self
        while block is not None:
            if name in block.vars:
                return block.vars[name]
            block = self.program.blocks[block.parent_idx] if block.parent_idx >= 0 else None
        raise ArgumentValueError(f"no variable named {name!r} in block {self.idx}")  # a ValueError, as Fluid's

    def has_var(self, name):
        return name in self.vars

    def _remove_var(self, name):
        """Drops variable ``name`` from this block (Fluid's Block._remove_var); ops naming it are the caller's."""
        if name not in self.vars:
            raise ValueError(f"no variable named {name!r} in block {self.idx}")
        del self.vars[name]
        self.program._bump()

    def _find_var_recursive(self, name):
        """The variable ``name`` of this block or of its nearest ancestor holding it, or None."""
        try:
            return self.var(name)
        except ValueError:
            return None

    def has_var_recursive(self, name):
        return self._find_var_recursive(name) is not None

    @property
    def parent_block(self):
        return self.program.blocks[self.parent_idx] if self.parent_idx >= 0 else None

    def all_parameters(self):
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    def iter_parameters(self):
        return iter(self.all_parameters())

    # -- ops -----------------------------------------------------------------------------------
    def append_op(self, type=None, inputs=None, outputs=None, attrs=None, role=None):
        if type is None:
            raise ValueError("`type` to initialized an Operator can not be None.")
        program_release.pass_stop_gradient(self, attrs, inputs, outputs, role)
        op = self._make_op(type, inputs, outputs, attrs, role)
        self.ops.append(op)
        self._after_insert(op)
        return op

    def _insert_op(self, index, type, inputs=None, outputs=None, attrs=None, role=None):
        op = self._make_op(type, inputs, outputs, attrs, role)
        self.ops.insert(index, op)
        self._after_insert(op)
        return op

    def _prepend_op(self, *args, **kwargs):
        return self._insert_op(0, *args, **kwargs)

    def _remove_op(self, index):
        del self.ops[index]
        self.program._bump()

    def _make_op(self, type, inputs, outputs, attrs, role):
        if not self.program.runs_now:
            static_mode.check_building(type)
        attrs = {k: block_attr(self.program, v) for k, v in (attrs or {}).items()}  # Fluid's sub_block=block
        inputs, attrs, attr_vars = attribute_variables.to_slots(type, inputs, attrs)
        if device_hint.current_device() is not None:
            device_hint.mark(type, attrs, registry.get(type))
        op = Operator(
            self,
            type,
            input_slot_names(type, inputs),
            slot_names(outputs),
            attrs,
            self.program._current_role if role is None else role,
            current_source(),
            current_layer(),
        )
        op.attr_vars = attr_vars
        if current_name_scope() != "/":
            op.attrs.setdefault("op_namescope", current_name_scope())
        program_release.mark_zero_dim(op)
        program_release.mark_paddle2(op)
        registry.prepare(op)
        return op

    def _after_insert(self, op):
        for name in op.output_arg_names:
            if name in self.vars:
                self.vars[name].op = op
        self.program._bump()

    def to_string(self, throw_on_error=False, with_details=False, nested=False, _shown=None):
        """The block as text; ``nested``: the block of each op that owns one (attribute
        ``sub_block``) follows that op, indented."""
        lines = [f"block {self.idx} (parent {self.parent_idx}) {{"]
        lines += ["  " + v.to_string(throw_on_error, with_details) for v in self.vars.values()]
        for op in self.ops:
            lines.append("  " + op.to_string())
            sub = op.attrs.get("sub_block")
            if nested and isinstance(sub, int) and 0 < sub < len(self.program.blocks):
                if _shown is not None:
                    _shown.add(sub)
                text = self.program.blocks[sub].to_string(throw_on_error, with_details, True, _shown)
                lines += ["    " + line for line in text.split("\n")]
        lines.append("}")
        return "\n".join(lines)
