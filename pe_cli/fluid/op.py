"""``paddle.fluid.op``: Operator, one op run by itself on a scope (standalone_op.py), the op protos
(``get_all_op_protos``: framework_pb2 OpProto messages of pe's registry), and Fluid's factory view of
them: ``create_op_creation_method(proto)`` gives an OpInfo whose ``method(**slots_and_attrs)`` makes
the Operator, and ``OperatorFactory()`` answers ``types()``, ``get_op_inputs(type)``, ..."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

import numpy as np  # noqa: F401

from . import core  # noqa: F401
from .proto import framework_messages as framework_pb2  # noqa: F401
from .standalone_op import CondOp, DynamicRecurrentOp, OpDescCreationMethod, Operator, RecurrentOp  # noqa: F401
from .standalone_op import get_all_op_protos
from .unsupported import optional_module

six = optional_module("six")


def is_str(s):
    return isinstance(s, str)


class OpInfo:
    def __init__(self, name, method, inputs, outputs, attrs):
        self.name, self.method, self.inputs, self.outputs, self.attrs = name, method, inputs, outputs, attrs


def create_op_creation_method(op_proto):
    """OpInfo of an OpProto message: ``method(**kwargs)`` makes ``Operator(type, **kwargs)``."""

    def method(*args, **kwargs):
        if args:
            raise ValueError("Only keyword arguments are supported.")
        return Operator(op_proto.type, **kwargs)

    return OpInfo(
        name=op_proto.type,
        method=method,
        inputs=[(s.name, s.duplicable) for s in op_proto.inputs],
        outputs=[(s.name, s.duplicable) for s in op_proto.outputs],
        attrs=[a.name for a in op_proto.attrs],
    )


class OperatorFactory:
    """``factory(type, **kwargs)`` (or ``type=``) makes the Operator; the rest describe the op types."""

    def __init__(self):
        self.op_methods = {p.type: create_op_creation_method(p) for p in get_all_op_protos()}

    def __call__(self, *args, **kwargs):
        if "type" in kwargs:
            if args:
                raise ValueError('Except the argument "type", all of the other arguments should be keyword arguments.')
            t = kwargs.pop("type")
        else:
            if len(args) != 1:
                raise ValueError('Except the argument "type", all of the other arguments should be keyword arguments.')
            t = args[0]
        return self.get_op_info(t).method(**kwargs)

    def types(self):
        return list(self.op_methods)

    def get_op_info(self, t):
        if t not in self.op_methods:
            raise ValueError(f"The operator: {t} is not registered.")
        return self.op_methods[t]

    def get_op_input_names(self, type):  # noqa: A002 -- Fluid's argument name
        return [n for n, _ in self.get_op_info(type).inputs]

    def get_op_inputs(self, type):  # noqa: A002
        return self.get_op_info(type).inputs

    def get_op_output_names(self, type):  # noqa: A002
        return [n for n, _ in self.get_op_info(type).outputs]

    def get_op_outputs(self, type):  # noqa: A002
        return self.get_op_info(type).outputs

    def get_op_attr_names(self, type):  # noqa: A002
        return self.get_op_info(type).attrs
