"""Fluid 1.8's ``OpProtoHolder`` (``layers.math_op_patch`` holds it): each op type's proto, its input,
output and attribute names, read from pe's op registry, the single source of truth."""
from types import SimpleNamespace

from ..base.errors import ArgumentValueError
from ..ops import registry


def _slot(slot):
    return SimpleNamespace(name=slot.name, duplicable=slot.duplicable, dispensable=slot.optional,
                           intermediate=False, comment="")


def _proto(opdef):
    return SimpleNamespace(type=opdef.type, comment=opdef.doc, inputs=[_slot(s) for s in opdef.inputs],
                           outputs=[_slot(s) for s in opdef.outputs],
                           attrs=[SimpleNamespace(name=n, comment="", generated=False) for n in opdef.attrs])


class OpProtoHolder:
    """``OpProtoHolder.instance().get_op_proto(type)``: the proto of a registered op type (a ValueError
    for an unknown one, as Fluid's)."""
    _instance = None

    @classmethod
    def instance(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def __init__(self):
        if OpProtoHolder._instance is not None:
            raise ArgumentValueError("OpProtoHolder is a singleton: use OpProtoHolder.instance()")

    def get_op_proto(self, type):
        if type not in registry.all_op_types():
            raise ArgumentValueError(f'Operator "{type}" has not been registered.')
        return _proto(registry.get(type))

    def update_op_proto(self):
        """Fluid reloads protos of custom ops here; pe's registry is always current."""
        return None

    @staticmethod
    def generated_op_attr_names():
        return {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device"}
