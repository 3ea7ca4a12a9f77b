"""Fluid's binary formats, so that models saved by PaddlePaddle Fluid load in pe:

- ``ProgramDesc``, the protobuf message of ``__model__`` (paddle/fluid/framework/framework.proto of
  Fluid 1.6-1.8: ProgramDesc > BlockDesc > VarDesc, OpDesc). Its message types are declared below
  with protobuf's descriptor API, as a FileDescriptorProto in text format, with Fluid's field
  numbers, and what Paddle 2.6's framework.proto added that a reader needs: the attribute types
  FLOAT64S, VAR, VARS, FLOAT64, SCALAR, SCALARS (and their Scalar message) and the ProgramDesc's
  ``op_version_map``; other fields a later Paddle added are skipped by the parser as unknown fields.
- a LoDTensor's serialization (what ``save_vars`` writes): pe_cli/base/lod_tensor_file.py, which the
  ``load`` op reads too; its names are re-exported here.

Reading checks every count against the bytes that are there, so a truncated or hostile file is a
one-line error, never a huge allocation. Nothing here is ever unpickled or executed.
"""

import functools

from .errors import PeError
from .lod_tensor_file import (
    DTYPE_CODES as DTYPE_CODES,
    DTYPES as DTYPES,
    MAX_HEADER_BYTES as MAX_HEADER_BYTES,
    VAR_TYPE_SCHEMA,  # noqa: F401 (re-exported)
    read_lod_tensor as read_lod_tensor,
    read_lod_tensors as read_lod_tensors,
    write_lod_tensor as write_lod_tensor,
)

# OpDesc.Attr's value field by AttrType (framework.proto): INT FLOAT STRING INTS FLOATS STRINGS
# BOOLEAN BOOLEANS BLOCK LONG BLOCKS LONGS, then Paddle 2.x's FLOAT64S VAR VARS FLOAT64 SCALAR SCALARS
ATTR_FIELDS = (
    "i",
    "f",
    "s",
    "ints",
    "floats",
    "strings",
    "b",
    "bools",
    "block_idx",
    "l",
    "blocks_idx",
    "longs",
    "float64s",
    "var_name",
    "vars_name",
    "float64",
    "scalar",
    "scalars",
)
ATTR_TYPE_NAMES = (
    "INT",
    "FLOAT",
    "STRING",
    "INTS",
    "FLOATS",
    "STRINGS",
    "BOOLEAN",
    "BOOLEANS",
    "BLOCK",
    "LONG",
    "BLOCKS",
    "LONGS",
    "FLOAT64S",
    "VAR",
    "VARS",
    "FLOAT64",
    "SCALAR",
    "SCALARS",
)
# the attributes Fluid stores a dtype in, as its VarType code
DTYPE_ATTRS = ("dtype", "in_dtype", "out_dtype")

_SCHEMA = (
    """
name: "pe_fluid_framework.proto" package: "paddle.framework.proto" syntax: "proto2"
enum_type { name: "AttrType"
  value { name: "INT" number: 0 } value { name: "FLOAT" number: 1 } value { name: "STRING" number: 2 }
  value { name: "INTS" number: 3 } value { name: "FLOATS" number: 4 } value { name: "STRINGS" number: 5 }
  value { name: "BOOLEAN" number: 6 } value { name: "BOOLEANS" number: 7 } value { name: "BLOCK" number: 8 }
  value { name: "LONG" number: 9 } value { name: "BLOCKS" number: 10 } value { name: "LONGS" number: 11 }
  value { name: "FLOAT64S" number: 12 } value { name: "VAR" number: 13 } value { name: "VARS" number: 14 }
  value { name: "FLOAT64" number: 15 } value { name: "SCALAR" number: 16 } value { name: "SCALARS" number: 17 } }
message_type { name: "Version" field { name: "version" number: 1 label: LABEL_OPTIONAL type: TYPE_INT64 } }
message_type { name: "Complex"
  field { name: "r" number: 1 label: LABEL_OPTIONAL type: TYPE_DOUBLE }
  field { name: "i" number: 2 label: LABEL_OPTIONAL type: TYPE_DOUBLE } }
message_type { name: "Scalar"
  enum_type { name: "Type" value { name: "BOOLEAN" number: 1 } value { name: "LONG" number: 2 }
    value { name: "FLOAT64" number: 3 } value { name: "COMPLEX128" number: 4 } }
  field { name: "type" number: 1 label: LABEL_REQUIRED type: TYPE_ENUM type_name: ".paddle.framework.proto.Scalar.Type" }
  field { name: "b" number: 2 label: LABEL_OPTIONAL type: TYPE_BOOL }
  field { name: "i" number: 3 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "r" number: 4 label: LABEL_OPTIONAL type: TYPE_DOUBLE }
  field { name: "c" number: 5 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".paddle.framework.proto.Complex" } }
message_type { name: "OpDesc"
  nested_type { name: "Attr"
    field { name: "name" number: 1 label: LABEL_REQUIRED type: TYPE_STRING }
    field { name: "type" number: 2 label: LABEL_REQUIRED type: TYPE_ENUM type_name: ".paddle.framework.proto.AttrType" }
    field { name: "i" number: 3 label: LABEL_OPTIONAL type: TYPE_INT32 }
    field { name: "f" number: 4 label: LABEL_OPTIONAL type: TYPE_FLOAT }
    field { name: "s" number: 5 label: LABEL_OPTIONAL type: TYPE_STRING }
    field { name: "ints" number: 6 label: LABEL_REPEATED type: TYPE_INT32 }
    field { name: "floats" number: 7 label: LABEL_REPEATED type: TYPE_FLOAT }
    field { name: "strings" number: 8 label: LABEL_REPEATED type: TYPE_STRING }
    field { name: "b" number: 10 label: LABEL_OPTIONAL type: TYPE_BOOL }
    field { name: "bools" number: 11 label: LABEL_REPEATED type: TYPE_BOOL }
    field { name: "block_idx" number: 12 label: LABEL_OPTIONAL type: TYPE_INT32 }
    field { name: "l" number: 13 label: LABEL_OPTIONAL type: TYPE_INT64 }
    field { name: "blocks_idx" number: 14 label: LABEL_REPEATED type: TYPE_INT32 }
    field { name: "longs" number: 15 label: LABEL_REPEATED type: TYPE_INT64 }
    field { name: "float64s" number: 16 label: LABEL_REPEATED type: TYPE_DOUBLE }
    field { name: "var_name" number: 17 label: LABEL_OPTIONAL type: TYPE_STRING }
    field { name: "vars_name" number: 18 label: LABEL_REPEATED type: TYPE_STRING }
    field { name: "float64" number: 19 label: LABEL_OPTIONAL type: TYPE_DOUBLE }
    field { name: "scalar" number: 20 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".paddle.framework.proto.Scalar" }
    field { name: "scalars" number: 21 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.Scalar" } }
  nested_type { name: "Var"
    field { name: "parameter" number: 1 label: LABEL_REQUIRED type: TYPE_STRING }
    field { name: "arguments" number: 2 label: LABEL_REPEATED type: TYPE_STRING } }
  field { name: "type" number: 3 label: LABEL_REQUIRED type: TYPE_STRING }
  field { name: "inputs" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpDesc.Var" }
  field { name: "outputs" number: 2 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpDesc.Var" }
  field { name: "attrs" number: 4 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpDesc.Attr" }
  field { name: "is_target" number: 5 label: LABEL_OPTIONAL type: TYPE_BOOL } }
"""
    + VAR_TYPE_SCHEMA
    + """message_type { name: "VarDesc"
  field { name: "name" number: 1 label: LABEL_REQUIRED type: TYPE_STRING }
  field { name: "type" number: 2 label: LABEL_REQUIRED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.VarType" }
  field { name: "persistable" number: 3 label: LABEL_OPTIONAL type: TYPE_BOOL }
  field { name: "need_check_feed" number: 4 label: LABEL_OPTIONAL type: TYPE_BOOL } }
message_type { name: "BlockDesc"
  field { name: "idx" number: 1 label: LABEL_REQUIRED type: TYPE_INT32 }
  field { name: "parent_idx" number: 2 label: LABEL_REQUIRED type: TYPE_INT32 }
  field { name: "vars" number: 3 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.VarDesc" }
  field { name: "ops" number: 4 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpDesc" }
  field { name: "forward_block_idx" number: 5 label: LABEL_OPTIONAL type: TYPE_INT32 default_value: "-1" } }
message_type { name: "CompatibleInfo"
  field { name: "version" number: 1 label: LABEL_REQUIRED type: TYPE_STRING }
  field { name: "type" number: 2 label: LABEL_REQUIRED type: TYPE_INT32 } }
message_type { name: "OpCompatibleMap"
  nested_type { name: "OpCompatiblePair"
    field { name: "op_name" number: 1 label: LABEL_REQUIRED type: TYPE_STRING }
    field { name: "compatible_info" number: 2 label: LABEL_REQUIRED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.CompatibleInfo" } }
  field { name: "pair" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpCompatibleMap.OpCompatiblePair" }
  field { name: "default_required_version" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING } }
message_type { name: "OpVersion" field { name: "version" number: 1 label: LABEL_REQUIRED type: TYPE_INT32 } }
message_type { name: "OpVersionMap"
  nested_type { name: "OpVersionPair"
    field { name: "op_name" number: 1 label: LABEL_REQUIRED type: TYPE_STRING }
    field { name: "op_version" number: 2 label: LABEL_REQUIRED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpVersion" } }
  field { name: "pair" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpVersionMap.OpVersionPair" } }
message_type { name: "ProgramDesc"
  field { name: "blocks" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.BlockDesc" }
  field { name: "op_compatible_map" number: 3 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpCompatibleMap" }
  field { name: "version" number: 4 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".paddle.framework.proto.Version" }
  field { name: "op_version_map" number: 5 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpVersionMap" } }
message_type { name: "OpProto"
  nested_type { name: "Var"
    field { name: "name" number: 1 label: LABEL_REQUIRED type: TYPE_STRING }
    field { name: "comment" number: 2 label: LABEL_REQUIRED type: TYPE_STRING }
    field { name: "duplicable" number: 3 label: LABEL_OPTIONAL type: TYPE_BOOL default_value: "false" }
    field { name: "intermediate" number: 4 label: LABEL_OPTIONAL type: TYPE_BOOL default_value: "false" }
    field { name: "dispensable" number: 5 label: LABEL_OPTIONAL type: TYPE_BOOL default_value: "false" } }
  nested_type { name: "Attr"
    field { name: "name" number: 1 label: LABEL_REQUIRED type: TYPE_STRING }
    field { name: "type" number: 2 label: LABEL_REQUIRED type: TYPE_ENUM type_name: ".paddle.framework.proto.AttrType" }
    field { name: "comment" number: 3 label: LABEL_REQUIRED type: TYPE_STRING }
    field { name: "generated" number: 4 label: LABEL_OPTIONAL type: TYPE_BOOL default_value: "false" } }
  field { name: "type" number: 1 label: LABEL_REQUIRED type: TYPE_STRING }
  field { name: "inputs" number: 2 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpProto.Var" }
  field { name: "outputs" number: 3 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpProto.Var" }
  field { name: "attrs" number: 4 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.OpProto.Attr" }
  field { name: "comment" number: 5 label: LABEL_REQUIRED type: TYPE_STRING } }
"""
)


def proto_module(schema):
    """{name: message class, or enum wrapper} of every top-level message and enum type of
    ``schema`` (a FileDescriptorProto in text format), as a generated ``_pb2`` module holds them,
    plus each top-level enum's values by name."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
    from google.protobuf.internal import enum_type_wrapper

    file_proto = text_format.Parse(schema, descriptor_pb2.FileDescriptorProto())
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file_proto)
    names = {
        m.name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{file_proto.package}.{m.name}"))
        for m in file_proto.message_type
    }
    for enum in file_proto.enum_type:
        names[enum.name] = enum_type_wrapper.EnumTypeWrapper(
            pool.FindEnumTypeByName(f"{file_proto.package}.{enum.name}")
        )
        names.update((v.name, v.number) for v in enum.value)
    return names


@functools.lru_cache(maxsize=1)
def looks_like_program_desc(data):
    """True for a protobuf ProgramDesc (its first field is ``blocks``), False for pe's JSON."""
    return data[:1] == b"\x0a"


def messages():
    """{name: message class or enum} of Fluid's framework.proto (the schema above; built once, on
    first use): what ``paddle.fluid.proto.framework_pb2`` holds."""
    return proto_module(_SCHEMA)


def unknown_enum(message, number):
    """The value of field ``number`` of ``message`` that protobuf kept as an unknown field (a closed enum's
    number the schema does not define: framework.proto's AttrType 99, a Scalar of type 9), or None. Read
    from the message's own bytes, so it works with every protobuf release pe takes."""
    data, pos, found = message.SerializePartialToString(), 0, None

    def varint():
        nonlocal pos
        value, shift = 0, 0
        while pos < len(data) and shift < 64:
            byte = data[pos]
            pos, value, shift = pos + 1, value | (byte & 0x7F) << shift, shift + 7
            if not byte & 0x80:
                break
        return value

    while pos < len(data):
        tag = varint()
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            value = varint()
            if field == number:
                found = value
        elif wire == 2:
            size = varint()  # (read before pos: varint moves it)
            pos += size
        elif wire in (1, 5):  # a 64-bit or 32-bit value
            pos += 8 if wire == 1 else 4
        else:  # (groups: no framework.proto message has one)
            break
    return found


def parse_program_desc(data, where):
    """The ProgramDesc message of ``data`` (bytes); ``where`` names the file in the error."""
    from google.protobuf.message import DecodeError

    desc = messages()["ProgramDesc"]()
    try:
        desc.ParseFromString(data)
    except DecodeError as e:
        raise PeError(f"{where}: not a Fluid ProgramDesc (protobuf): {e}") from None
    if not desc.blocks:
        raise PeError(f"{where}: the Fluid ProgramDesc has no block")
    return desc
