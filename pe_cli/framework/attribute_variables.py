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


def to_slots(op_type, inputs, attrs):
    """(inputs, attrs, {attribute: slot}) with the attributes given by a Variable moved to their slots."""
    given = [name for name, value in attrs.items() if isinstance(value, Variable)]
    if not given:
        return inputs, attrs, {}
    opdef = registry.get(op_type)
    duplicable = {s.name for s in opdef.inputs if s.duplicable}
    slots = {attr: slot for slot, attr in opdef.attr_tensors.items() if slot not in duplicable}
    inputs, attrs, moved = dict(inputs or {}), dict(attrs), {}
    for name in given:
        if name not in slots:
            raise ArgumentTypeError(
                f"{op_type}: attribute '{name}' takes a value, not a Variable "
                f"('{attrs[name].name}'); those a Variable may give: {sorted(slots) or 'none'}"
            )
        inputs[slots[name]] = [attrs.pop(name)]
        moved[name] = slots[name]
    return inputs, attrs, moved
