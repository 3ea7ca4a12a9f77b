"""Attributes held in a Variable, as Paddle 2.x builds them (``paddle.nn.functional.dropout(x,
p=Variable)``: Paddle's attributes tagged SupportTensor). pe's op registry gives such an attribute a
tensor slot (``attr_tensors``: Fluid 1.8's own AxisTensor, StartsTensor, ... are the same idea), and
the kernels read its value when the op runs (kernels/tensor_attrs.py). An op built with a Variable
for one of those attributes gets the Variable in that slot and the attribute's default; it remembers
which (``Operator.attr_vars``), so ``all_attrs()`` and the program's text show the Variable, as
Paddle's do. A Variable for any other attribute is a TypeError naming it."""

from ..base.errors import ArgumentTypeError
from ..ops import registry
from .variable import Variable


def _variables(value):
    """Whether ``value`` is a list of Variables (Paddle's VARS attribute: unpool's output_size)."""
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, Variable) for v in value)


def to_slots(op_type, inputs, attrs):
    """(inputs, attrs, {attribute: slot}) with the attributes given by a Variable moved to their slots (a list of
    Variables to the attribute's duplicable slot)."""
    given = [name for name, value in attrs.items() if isinstance(value, Variable) or _variables(value)]
    if not given:
        return inputs, attrs, {}
    opdef = registry.get(op_type)
    duplicable = {s.name for s in opdef.inputs if s.duplicable}
    slots = {attr: slot for slot, attr in opdef.attr_tensors.items() if slot not in duplicable}
    lists = {attr: slot for slot, attr in opdef.attr_tensors.items() if slot in duplicable}
    inputs, attrs, moved = dict(inputs or {}), dict(attrs), {}
    for name in given:
        many = not isinstance(attrs[name], Variable)
        if name not in (lists if many else slots):
            shown = [v.name for v in attrs[name]] if many else attrs[name].name
            raise ArgumentTypeError(
                f"{op_type}: attribute '{name}' takes a value, not {'Variables' if many else 'a Variable'} "
                f"({shown!r}); those a Variable may give: {sorted(slots) or 'none'}"
            )
        inputs[(lists if many else slots)[name]] = list(attrs.pop(name)) if many else [attrs.pop(name)]
        moved[name] = (lists if many else slots)[name]
    return inputs, attrs, moved
