"""Fluid's op protos (``framework.OpProtoHolder.instance().get_op_proto(type)``; ``layers.math_op_patch``
holds the same class), built from pe's op
registry: each input and output slot with Fluid's ``duplicable``, ``dispensable`` and
``intermediate`` flags, each attribute with its name, Fluid attribute type and default.

pe's slots say "a list" (duplicable) and "may be absent" (optional: Fluid's dispensable). The
registry has no "intermediate" fact: an output slot that is not optional is reported intermediate,
so that a test which gives no expected value for it gets a variable for it, as Fluid makes one
for its intermediate outputs (XShape, a softmax kept for the gradient)."""

from ..base.activations_row import real_number
from ..framework.operator import AttrType, attr_type_of
from ..ops import registry
from ..ops.attributes import int_list, is_int
from ..ops.paddle26_kinds import KINDS

# the type of an attribute whose default tells none (None, an empty list): from its check
_BY_CHECK = {real_number: AttrType.FLOAT, is_int: AttrType.INT, int_list: AttrType.INTS}
_BY_EXPECT = {"a number": AttrType.FLOAT, "a list of ints": AttrType.INTS, "a list of numbers": AttrType.FLOATS}


def declared_type(default, spec, key=None):
    """The Fluid type of an attribute: its default's, or where the default is None or an empty list
    (clip's min, split's sections), the one its check or expected values name, or else the one Paddle 2.6.2
    declares (``key``: "op.attr" in paddle26_kinds.KINDS: cast's out_dtype INT, where pe's default, None
    or a dtype's name, reads as a STRING), an empty list INTS (conv2d_transpose's output_size) unless Paddle
    2.6.2 declares another type."""
    if default is None or (isinstance(default, (list, tuple)) and not default):
        found = _BY_CHECK.get(getattr(spec, "check", None)) or _BY_EXPECT.get(getattr(spec, "expect", ""))
        if found is not None:
            return found
    if key in KINDS and (default is None or isinstance(default, str)):  # (a dtype's name: Paddle's INT)
        return KINDS[key]
    if isinstance(default, (list, tuple)) and not default:  # ([] is INTS, as Fluid stores it)
        return KINDS.get(key, AttrType.INTS)
    return attr_type_of(default)


class VarProto:
    def __init__(self, slot, is_output):
        self.name = slot.name
        self.duplicable = slot.duplicable
        self.dispensable = slot.optional
        self.intermediate = is_output and not slot.optional and not slot.duplicable
        self.comment = ""


class AttrProto:
    def __init__(self, name, spec, support_tensor=False, op_type=None):
        self.name = name
        default = spec.default() if callable(spec.default) else spec.default
        self.default = default
        self.type = declared_type(default, spec, f"{op_type}.{name}")
        self.comment = spec.expect
        self.generated = False
        self.support_tensor = support_tensor  # Paddle 2.x's: a Variable may give it (attr_tensors)


class OpProto:
    def __init__(self, opdef):
        self.type = opdef.type
        self.inputs = [VarProto(s, False) for s in opdef.inputs]
        self.outputs = [VarProto(s, True) for s in opdef.outputs]
        tensors = set(opdef.attr_tensors.values())
        self.attrs = [AttrProto(n, spec, n in tensors, opdef.type) for n, spec in opdef.attrs.items()]
        self.comment = opdef.doc


class OpProtoHolder:
    """``OpProtoHolder.instance().get_op_proto(type)``: the proto of a registered op type."""

    _instance = None

    @classmethod
    def instance(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def __init__(self):
        self.op_proto_map = {}

    def get_op_proto(self, type):
        proto = self.op_proto_map.get(type)
        if proto is None:
            if not registry.registered(type):
                raise ValueError(f'Operator "{type}" has not been registered.')
            proto = self.op_proto_map[type] = OpProto(registry.get(type))
        return proto

    def update_op_proto(self):
        """Fluid reloads protos of custom ops here; pe's registry is always current."""
        return None

    @staticmethod
    def generated_op_attr_names():
        return {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device"}
