"""``paddle.fluid`` op protos: pe_cli/layers/op_proto.py (one OpProtoHolder for framework and
layers.math_op_patch)."""

from ..layers.op_proto import AttrProto, OpProto, OpProtoHolder, VarProto  # noqa: F401
