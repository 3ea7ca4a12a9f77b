"""Op protos and op descs as ``framework_pb2`` messages, as ``paddle.fluid.op`` gives them:
``get_all_op_protos()`` (one OpProto per op type of pe's registry, from the protos OpProtoHolder
builds) and ``OpDescCreationMethod(op_proto)(**slots_and_attrs)`` (an OpDesc message)."""

import numpy as np

from ..framework.operator import AttrType
from .op_proto import OpProtoHolder
from .proto import framework_messages as framework_pb2
from ..ops import registry


def op_proto_message(op_type):
    """The framework_pb2.OpProto of a registered op type."""
    proto = OpProtoHolder.instance().get_op_proto(op_type)
    message = framework_pb2.OpProto(type=proto.type, comment=proto.comment or "")
    for slots, protos in ((message.inputs, proto.inputs), (message.outputs, proto.outputs)):
        for var in protos:
            slots.add(
                name=var.name,
                comment=var.comment,
                duplicable=var.duplicable,
                dispensable=var.dispensable,
                intermediate=var.intermediate,
            )
    for attr in proto.attrs:
        message.attrs.add(name=attr.name, type=attr.type, comment=attr.comment or "", generated=attr.generated)
    return message


def get_all_op_protos():
    """A framework_pb2.OpProto for every op type of the registry."""
    return [op_proto_message(t) for t in registry.all_op_types()]


# attribute type -> (field of OpDesc.Attr, is a list)
_ATTR_FIELDS = {
    AttrType.INT: ("i", False),
    AttrType.FLOAT: ("f", False),
    AttrType.STRING: ("s", False),
    AttrType.BOOLEAN: ("b", False),
    AttrType.LONG: ("l", False),
    AttrType.INTS: ("ints", True),
    AttrType.FLOATS: ("floats", True),
    AttrType.STRINGS: ("strings", True),
    AttrType.BOOLEANS: ("bools", True),
    AttrType.LONGS: ("longs", True),
}


class OpDescCreationMethod:
    """``OpDescCreationMethod(op_proto)(X="a", Out="b", scale=2.0)``: the OpDesc message of an op
    of that proto, its slots given as a name or a list of names, its attributes by name."""

    def __init__(self, op_proto):
        if not isinstance(op_proto, framework_pb2.OpProto):
            raise TypeError("Type of op_proto should be OpProto in PaddlePaddle.")
        self.__op_proto__ = op_proto

    def __call__(self, *args, **kwargs):
        if args:
            raise ValueError("Only keyword arguments are supported.")
        proto = self.__op_proto__
        desc = framework_pb2.OpDesc(type=proto.type)
        for slots, protos, kind in ((desc.inputs, proto.inputs, "input"), (desc.outputs, proto.outputs, "output")):
            for var in protos:
                names = kwargs.get(var.name, [])
                names = [names] if isinstance(names, str) else list(names)
                if not var.duplicable and len(names) > 1:
                    raise ValueError(
                        f"{kind.capitalize()} {var.name} expects only one {kind}, but {len(names)} are given."
                    )
                slots.add(parameter=var.name, arguments=names)
        for attr in proto.attrs:
            value = kwargs.get(attr.name)
            if attr.generated or value is None:
                continue
            _set_attr(desc.attrs.add(name=attr.name, type=attr.type), attr.type, value)
        return desc

    @staticmethod
    def any_is_true(generator):
        return any(generator)


def _set_attr(message, attr_type, value):
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if attr_type == AttrType.BLOCK:
        message.block_idx = value.idx
    elif attr_type == AttrType.BLOCKS:
        message.blocks_idx.extend(b.idx for b in value)
    elif attr_type in _ATTR_FIELDS:
        field, many = _ATTR_FIELDS[attr_type]
        if many:
            getattr(message, field).extend(value)
        else:
            setattr(message, field, value)
    else:
        raise NotImplementedError(f"A not supported attribute type: {attr_type}.")


def _get_attr(message):
    """The value of an OpDesc.Attr message (the reverse of _set_attr)."""
    field, many = _ATTR_FIELDS.get(message.type, (None, False))
    if field is None:
        raise NotImplementedError(f"A not supported attribute type: {message.type}.")
    value = getattr(message, field)
    return list(value) if many else value


def desc_slots_and_attrs(data):
    """(type, {slot or attribute: value}) of a serialized OpDesc message: each slot its list of
    variable names, each attribute its value; the keywords ``paddle.fluid.op.Operator`` takes."""
    desc = framework_pb2.OpDesc.FromString(bytes(data))
    kwargs = {slot.parameter: list(slot.arguments) for slot in list(desc.inputs) + list(desc.outputs)}
    kwargs.update({attr.name: _get_attr(attr) for attr in desc.attrs})
    return desc.type, kwargs
