"""The op registry: the single source of truth for what an op is, asked by layers, autodiff,
passes, executors and the YAML compiler alike.

Every op family module of ``pe_cli/ops/`` registers its ops through define.py when it is imported;
``get``, ``all_op_types`` and ``with_trait`` import every family module of this package first
(found on disk: a new family needs no list entry), so a lookup always sees every op. ``prepare``
checks an op being appended against its definition and runs its shape inference. The family
modules import define.py, never this module: nothing imports the registry back.
"""

import importlib
import pkgutil
import warnings

import numpy as np

from ..base.dtypes import convert_dtype
from ..base.errors import ArgumentAssertionError, ArgumentValueError, PeError, ShapeError, UnknownOpError, did_you_mean
from .define import GRAD_SUFFIX, RENAMED, TRAITS, REGISTRY, as_long, dtype_or_none, grad_var_name  # noqa: F401 (the first and last re-exported)
from .attributes import is_default, undeclared_kind
from .op_versions import MEANING_CHANGED as MEANING_CHANGED, version as op_version  # noqa: F401 (re-exported)
from ..base.dims import fmt_shape  # noqa: F401  (re-exported: the faces format shapes with it)
from ..shapes.reduction import scalar_shape

_LOADED = False
_NOT_FAMILIES = {
    "attributes",
    "define",
    "op_definition",
    "op_traits",
    "registry",
    "paddle2_attrs",
    "paddle26_kinds",
    "op_versions",
}


class UndeclaredAttributeWarning(UserWarning):
    """An op was given an attribute its definition does not declare: ignored, as Fluid does."""


class UnsupportedAttributeError(PeError, ValueError):
    """An attribute pe does not compute with, given a value that would change what Paddle computes, or
    an attribute a model file gives an op that has none of that name."""


def _load_all():
    global _LOADED
    if not _LOADED:
        _LOADED = True
        for info in pkgutil.iter_modules(importlib.import_module(__package__).__path__):
            if info.name not in _NOT_FAMILIES:
                importlib.import_module(f"{__package__}.{info.name}")


def get(type):
    _load_all()
    opdef = REGISTRY.get(type)
    if opdef is None:
        hint = did_you_mean(type, REGISTRY, f"known ops: {', '.join(sorted(REGISTRY))}")
        raise UnknownOpError(f'Operator "{type}" has not been registered. (unknown op type; {hint})')
    return opdef


def known(type):
    """Whether ``type`` names an op: a registered one, or an old name of one (RENAMED)."""
    _load_all()
    return type in REGISTRY or type in RENAMED


def _upgrade(op):
    """An op appended under an old name (RENAMED) becomes the op it is now, its slots renamed."""
    new, slots, dropped = RENAMED[op.type]
    op.type = new
    op.inputs = {slots.get(s, s): names for s, names in op.inputs.items() if s not in dropped}
    op.outputs = {slots.get(s, s): names for s, names in op.outputs.items() if s not in dropped}


def all_op_types():
    _load_all()
    return sorted(REGISTRY)


def with_trait(trait):
    """The op types that have ``trait`` (see TRAITS), sorted."""
    if trait not in TRAITS:
        raise KeyError(f"unknown trait '{trait}'; known: {sorted(TRAITS)}")
    _load_all()
    return sorted(t for t, d in REGISTRY.items() if trait in d.traits)


def _where(op):
    return op.describe()


def prepare(op):
    """Checks an op's slots and attributes against its definition, fills attribute defaults, and
    runs shape inference. Called by Block when an op is appended."""
    _load_all()
    if op.type in RENAMED:
        _upgrade(op)
    opdef = get(op.type)
    for slot in opdef.inputs:
        names = op.inputs.get(slot.name)
        if not names and not slot.optional and not slot.duplicable:  # Fluid's Operator: an assert, a ValueError
            raise ArgumentAssertionError(f"{_where(op)}: missing input '{slot.name}'")
        if names and len(names) > 1 and not slot.duplicable:
            raise ArgumentValueError(f"{_where(op)}: input '{slot.name}' takes one variable, got {len(names)}")
    known_in = {s.name for s in opdef.inputs}
    known_out = {s.name for s in opdef.outputs}
    for slot in op.inputs:
        if slot not in known_in:
            raise PeError(f"{_where(op)}: unknown input slot '{slot}'; it has {sorted(known_in)}")
    for slot in op.outputs:
        if slot not in known_out:
            raise PeError(f"{_where(op)}: unknown output slot '{slot}'; it has {sorted(known_out)}")
    check_attrs(op)
    infer_shape(op)


def check_attrs(op):
    """Checks the op's attributes against its definition and fills the defaults of those it lacks
    (Fluid's ``OpDesc.check_attrs``)."""
    opdef = get(op.type)
    for name, value in list(op.attrs.items()):
        if isinstance(value, (np.ndarray, np.generic)):  # Fluid's attributes take numpy arrays and numbers
            op.attrs[name] = value = value.tolist()
        spec = opdef.attrs.get(name)
        if spec is None:
            if name not in COMMON_ATTRS:
                _drop_undeclared(op, name, opdef)
            continue
        if spec.alias_of:  # Paddle 2.x's name of a Fluid 1.8 attribute: kept under Fluid's
            del op.attrs[name]
            if value is None:
                continue
            name, spec = spec.alias_of, opdef.attrs[spec.alias_of]
            op.attrs[name] = value
        if value is None and not _accepts(op, spec, name, None):
            del op.attrs[name]  # Fluid's Operator skips an attribute given as None: the default holds
            continue
        if spec.long:
            op.attrs[name] = value = as_long(value)
        if value == -1 and spec.check is dtype_or_none and spec.default is None and not isinstance(value, bool):
            op.attrs[name] = value = None  # Fluid's VarType -1: "the input's dtype" (fill_any_like)
        if spec.choices and value not in spec.choices and isinstance(value, int) and not isinstance(value, bool):
            try:
                named = convert_dtype(value)  # Fluid's VarType number of a dtype
            except (PeError, TypeError):
                named = None
            if named in spec.choices:
                op.attrs[name] = value = named
        spec.validate(op, name, value)
        refuse_unsupported(op, name, spec, value)
        if spec.check is dtype_or_none and value is not None:
            op.attrs[name] = convert_dtype(value)  # Fluid's VarType number or any spelling: the name
    for name, default in opdef.default_attrs().items():
        op.attrs.setdefault(name, default)


def refuse_unsupported(op, name, spec, value):
    """An attribute pe declares but does not compute with (``Attr.unsupported``: one Paddle 2.x added),
    given a value other than Paddle's default, is refused in one line: pe would compute something else."""
    if spec.unsupported and not is_default(spec.default, value):
        raise UnsupportedAttributeError(
            f"{_where(op)}: attribute {name}={_shown(value)} is not implemented by pe ({spec.unsupported}); "
            f"pe runs {op.type} only with Paddle's default {name}={spec.default!r}"
        )


def refuse_undeclared(op_type, name, value, kind=None):
    """The one rule for an attribute a model file gives an op that the op does not declare (neither Fluid
    1.8.5 nor Paddle 2.6.2 has it on that op type, or its value has a type framework.proto does not
    define): refused in one line, unless it is one of the notes any op may carry (attributes.undeclared_kind:
    Fluid's common ones, quantization notes, backend switches, a neutral value). Returns that kind."""
    known = undeclared_kind(name, value)
    if known is not None and kind is None:
        return known
    what = (
        f"has a type ({kind}) that framework.proto does not define"
        if kind is not None
        else f"={_shown(value)} is not an attribute of {op_type} (neither Fluid 1.8.5 nor Paddle 2.6.2 declares it)"
    )
    raise UnsupportedAttributeError(
        f"attribute {name}{' ' if kind is not None else ''}{what}; pe refuses it rather than "
        + (f"run {op_type} without it" if op_type else "guess its value")
    )


def _shown(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _drop_undeclared(op, name, opdef):
    """An attribute the op does not declare is dropped, as Fluid's ``Operator`` copies only the
    attributes of the op's proto; a warning names it (a typo shows, with the closest name)."""
    del op.attrs[name]
    hint = did_you_mean(name, opdef.attrs, f"it takes {sorted(opdef.attrs)}")
    warnings.warn(
        f"{_where(op)}: attribute '{name}' is not one of {op.type}'s and is ignored (as Fluid ignores it); {hint}",
        UndeclaredAttributeWarning,
        stacklevel=2,
    )


def _accepts(op, spec, name, value):
    try:
        spec.validate(op, name, value)
    except (ValueError, TypeError):
        return False
    return True


def infer_shape(op):
    """Runs the op's shape inference: its output variables (in ``op.block``) get their shapes,
    dtypes and LoD levels."""
    opdef = get(op.type)
    if opdef.infer is not None:
        try:
            opdef.infer(InferContext(op, opdef))
        except UnknownShape:  # the rule read an input whose shape is unknown: so are its outputs'
            _unknown_outputs(op)
        except (ValueError, PeError):
            # a check that failed counts as an unknown shape only when the op's first input has none
            if not _has_unknown_input(op, opdef.inputs[:1]):
                raise
            _unknown_outputs(op)
    if opdef.lod == "keep":
        _keep_lod_level(op)


def _has_unknown_input(op, slots):
    """True where an input variable of ``slots`` has no shape yet (``create_tensor``, a variable only a
    later ``assign`` or the feed fills)."""
    names = [n for s in slots for n in op.inputs.get(s.name, ())]
    return any(n in op.block.vars and op.block.vars[n].shape is None for n in names)


def _unknown_outputs(op):
    """Fluid 1.8.5 builds an op over a variable created without a shape (its VarDesc dims are [],
    which compile-time inference passes through) and the run takes the shapes of the values: the
    outputs' shapes are unknown until then, as their inputs'."""
    for names in op.outputs.values():
        for n in names:
            if n in op.block.vars:
                op.block.vars[n].shape = None


def _keep_lod_level(op):
    """Shape inference's half of the "keep" LoD rule: an output with the rows of the first input
    that is a sequence gets its lod_level (fc, elementwise ops and activations over sequences)."""
    block = op.block
    first = next(
        (
            block.vars[n]
            for names in op.inputs.values()
            for n in names[:1]
            if n in block.vars and block.vars[n].lod_level
        ),
        None,
    )
    if first is None or not first.shape:
        return
    for names in op.outputs.values():
        for n in names:
            var = block.vars.get(n)
            if var is not None and not var.lod_level and var.shape and var.shape[:1] == first.shape[:1]:
                var.lod_level = first.lod_level


# Attributes any op may carry, with Fluid's defaults: Fluid 1.8 puts the op_* ones on every op (its
# framework adds them to every proto: the op's role in training, name scope, Python call stack and the
# device a pipeline places it on) and use_mkldnn / use_cudnn on many. An op accepts them without
# declaring them; pe fills no default for them, so a program carries one only where it was set.
COMMON_ATTRS = {
    "op_role": 4096,
    "op_role_var": [],
    "op_namescope": "",
    "op_callstack": [],
    "op_device": "",
    "use_mkldnn": False,
    "use_cudnn": False,
    "name": None,
    "is_test_unused": None,
    "with_quant_attr": False,
}  # (Paddle 2.x puts with_quant_attr on every op: its slim passes' mark)


class UnknownShape(Exception):
    """An inference rule read an input whose shape is unknown (its variable's shape is None: built by
    ``create_tensor``, filled only by a later ``assign`` or the feed). Not a TypeError, nor a PeError:
    a rule's own TypeError is a bug in the rule and propagates."""


class InferContext:
    """What a shape inference rule sees: input shapes and dtypes, attributes; it sets outputs. Built when
    the op is (``is_runtime`` false); an op registered with run_infer runs its rule again when it runs,
    on its values (kernels/run_checks.RunInferContext), for the checks Fluid makes only then."""

    is_runtime = False

    def __init__(self, op, opdef):
        self.op = op
        self.opdef = opdef
        self.attrs = op.attrs
        self.block = op.block

    def has_input(self, slot):
        return bool(self.op.inputs.get(slot))

    def has_output(self, slot):
        return bool(self.op.outputs.get(slot))

    def _var(self, names, slot, i):
        if i >= len(names):
            raise PeError(f"{_where(self.op)}: slot '{slot}' has no variable #{i}")
        return self.block.var(names[i])

    def input_var(self, slot, i=0):
        return self._var(self.op.inputs.get(slot, []), slot, i)

    def output_var(self, slot, i=0):
        return self._var(self.op.outputs.get(slot, []), slot, i)

    def shape(self, slot, i=0):
        """The input's shape (-1 for an unknown dim); UnknownShape where the variable has none yet: the
        op's outputs are then unknown too (``infer_shape``). ``input_var(slot).shape`` is None there."""
        shape = self.input_var(slot, i).shape
        if shape is None:
            raise UnknownShape(f"{_where(self.op)}: input {slot} has no shape yet")
        return shape

    def dtype(self, slot, i=0):
        return self.input_var(slot, i).dtype

    def shapes(self, slot):
        """The shapes of the slot's inputs; UnknownShape where one has none yet (see ``shape``)."""
        shapes = [self.block.var(n).shape for n in self.op.inputs.get(slot, [])]
        if any(s is None for s in shapes):
            raise UnknownShape(f"{_where(self.op)}: an input of {slot} has no shape yet")
        return shapes

    def num_inputs(self, slot):
        return len(self.op.inputs.get(slot, []))

    def num_outputs(self, slot):
        return len(self.op.outputs.get(slot, []))

    def set_output(self, slot, shape, dtype=None, i=0, lod_level=None, var_type=None):
        """``var_type``: the variable's VarType where the op knows it (SELECTED_ROWS: row-sparse)."""
        names = self.op.outputs.get(slot, [])
        if i >= len(names):
            return  # an optional output the builder did not ask for
        var = self.block.var(names[i])
        var.shape = tuple(int(d) for d in shape) if shape is not None else None
        if dtype is not None:
            var.dtype = convert_dtype(dtype)
        if lod_level is not None:
            var.lod_level = lod_level
        if var_type is not None:
            var._type = var_type

    @property
    def paddle2(self):
        """Whether the op computes Paddle 2.x's meaning where it differs (``Operator.paddle2``)."""
        return self.op.paddle2

    def scalar_shape(self):
        """The shape of one value reduced from a tensor (mean, a reduction over every dim): [] (0-D)
        where the op says so (``Operator.zero_dim``: a ``paddle.*`` call in a Paddle 2.x program,
        framework/program_release.py), else Fluid's [1]."""
        return list(scalar_shape(self.op.zero_dim))

    def fail(self, message):
        """Raises a ShapeError naming the layer (where it was built) and the problem."""
        raise ShapeError(f"{_where(self.op)}: {message}")
