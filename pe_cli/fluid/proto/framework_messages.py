"""``paddle.fluid.proto.framework_pb2`` (``pe fluid`` maps that name here: a module name of pe never
ends in a digit): the message classes of Fluid 1.8's framework.proto (OpProto, OpDesc, VarType,
VarDesc, BlockDesc, ProgramDesc, Version) and the AttrType values (``framework_pb2.INT``...), with
Fluid's field numbers, so bytes they write are Fluid's."""

from ...base.fluid_proto import messages

globals().update(messages())
