"""A LoDTensor's serialization as Fluid writes it (what ``save_vars`` and the ``save`` op write, one
variable per file or several end to end in one ``params_filename``): uint32 version 0; uint64 LoD levels,
each a uint64 byte count and that many bytes of uint64 offsets; uint32 version 0; int32 size of a
``VarType.TensorDesc`` message, the message (data type, dims); the raw little-endian data.

Reading checks every count against the bytes that are there, so a truncated or hostile file is a
one-line error, never a huge allocation. The ``VarType`` message (Fluid's framework.proto field
numbers) is declared here once; pe_cli/base/fluid_proto.py's ProgramDesc schema includes it.
"""

import functools
import struct

import numpy as np

from .errors import PeError
from .dims import numel

VAR_TYPE_SCHEMA = """
message_type { name: "VarType"
  enum_type { name: "Type"
    value { name: "BOOL" number: 0 } value { name: "INT16" number: 1 } value { name: "INT32" number: 2 }
    value { name: "INT64" number: 3 } value { name: "FP16" number: 4 } value { name: "FP32" number: 5 }
    value { name: "FP64" number: 6 } value { name: "SIZE_T" number: 19 } value { name: "UINT8" number: 20 }
    value { name: "INT8" number: 21 } value { name: "BF16" number: 22 } value { name: "COMPLEX64" number: 23 }
    value { name: "COMPLEX128" number: 24 } value { name: "LOD_TENSOR" number: 7 }
    value { name: "SELECTED_ROWS" number: 8 } value { name: "FEED_MINIBATCH" number: 9 }
    value { name: "FETCH_LIST" number: 10 } value { name: "STEP_SCOPES" number: 11 }
    value { name: "LOD_RANK_TABLE" number: 12 } value { name: "LOD_TENSOR_ARRAY" number: 13 }
    value { name: "PLACE_LIST" number: 14 } value { name: "READER" number: 15 } value { name: "RAW" number: 17 }
    value { name: "TUPLE" number: 18 } value { name: "STRING" number: 25 } value { name: "STRINGS" number: 26 }
    value { name: "VOCAB" number: 27 } value { name: "FEED_LIST" number: 28 } value { name: "PSTRING" number: 29 }
    value { name: "SPARSE_COO" number: 30 } value { name: "SPARSE_CSR" number: 31 } }
  nested_type { name: "TensorDesc"
    field { name: "data_type" number: 1 label: LABEL_REQUIRED type: TYPE_ENUM type_name: ".paddle.framework.proto.VarType.Type" }
    field { name: "dims" number: 2 label: LABEL_REPEATED type: TYPE_INT64 } }
  nested_type { name: "LoDTensorDesc"
    field { name: "tensor" number: 1 label: LABEL_REQUIRED type: TYPE_MESSAGE type_name: ".paddle.framework.proto.VarType.TensorDesc" }
    field { name: "lod_level" number: 2 label: LABEL_OPTIONAL type: TYPE_INT32 } }
  field { name: "type" number: 1 label: LABEL_REQUIRED type: TYPE_ENUM type_name: ".paddle.framework.proto.VarType.Type" }
  field { name: "selected_rows" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".paddle.framework.proto.VarType.TensorDesc" }
  field { name: "lod_tensor" number: 3 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".paddle.framework.proto.VarType.LoDTensorDesc" }
  field { name: "tensor_array" number: 4 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".paddle.framework.proto.VarType.LoDTensorDesc" } }
"""

# VarType.Type's data types <-> numpy
DTYPES = {
    0: "bool",
    1: "int16",
    2: "int32",
    3: "int64",
    4: "float16",
    5: "float32",
    6: "float64",
    20: "uint8",
    21: "int8",
    23: "complex64",
    24: "complex128",
}  # (the complex types: Paddle 2.x's)
DTYPE_CODES = {v: k for k, v in DTYPES.items()}
MAX_HEADER_BYTES = 1 << 20  # a TensorDesc or a LoD level larger than this is not a real file


@functools.lru_cache(maxsize=1)
def var_type():
    """Fluid's ``VarType`` message class (its TensorDesc is a LoDTensor file's header), built once."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

    pool = descriptor_pool.DescriptorPool()
    schema = 'name: "pe_fluid_var_type.proto" package: "paddle.framework.proto" syntax: "proto2"' + VAR_TYPE_SCHEMA
    pool.Add(text_format.Parse(schema, descriptor_pb2.FileDescriptorProto()))
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("paddle.framework.proto.VarType"))


class _Reader:
    def __init__(self, data, where):
        self.data, self.at, self.where = memoryview(data), 0, where

    def take(self, n, what):
        if n < 0 or self.at + n > len(self.data):
            raise PeError(
                f"{self.where}: truncated LoDTensor: {what} needs {n} bytes at byte {self.at}, "
                f"{len(self.data) - self.at} left"
            )
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def unpack(self, fmt, what):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0]


def _read_lod(reader):
    """The LoD (offsets per level) at the start of a serialized LoDTensor."""
    where = reader.where
    if reader.unpack("<I", "the version") != 0:
        raise PeError(f"{where}: not a Fluid LoDTensor (its version is not 0)")
    lod = []
    for _ in range(reader.unpack("<Q", "the LoD level count")):
        size = reader.unpack("<Q", "a LoD level's size")
        if size % 8 or size > MAX_HEADER_BYTES:
            raise PeError(f"{where}: a LoD level of {size} bytes is not a list of uint64 offsets")
        lod.append(np.frombuffer(reader.take(size, "a LoD level"), "<u8").astype(np.int64).tolist())
    return lod


def _tensor_desc(reader):
    """(little-endian dtype, dims) of the TensorDesc that starts a serialized tensor."""
    where = reader.where
    if reader.unpack("<I", "the tensor version") != 0:
        raise PeError(f"{where}: not a Fluid tensor (its version is not 0)")
    size = reader.unpack("<i", "the tensor description's size")
    if not 0 <= size <= MAX_HEADER_BYTES:
        raise PeError(f"{where}: a tensor description of {size} bytes is not a real one")
    from google.protobuf.message import DecodeError

    desc = var_type().TensorDesc()
    try:
        desc.ParseFromString(bytes(reader.take(size, "the tensor description")))
    except DecodeError as e:
        raise PeError(f"{where}: the tensor description is damaged ({e})") from None
    code = data_type_code(desc)
    if code not in DTYPES:
        known = ", ".join(f"{k} {v}" for k, v in sorted(DTYPES.items()))
        raise PeError(f"{where}: data type {code} is not one pe reads ({known})")
    return np.dtype(DTYPES[code]).newbyteorder("<"), tuple(int(d) for d in desc.dims)


def data_type_code(tensor_desc):
    """The data type number a TensorDesc holds, as written: protobuf reads a number its enum does not
    name (99) as an unknown field and leaves ``data_type`` at its default (0, bool); that number is
    returned, so a reader refuses it by number instead of reading bool. None when the field is absent."""
    if tensor_desc.HasField("data_type"):
        return tensor_desc.data_type
    from google.protobuf.unknown_fields import UnknownFieldSet

    written = [f.data for f in UnknownFieldSet(tensor_desc) if f.field_number == 1 and f.wire_type == 0]
    return written[-1] if written else None


def _take_array(reader, dtype, dims):
    if any(d < 0 for d in dims):
        raise PeError(f"{reader.where}: the tensor's dims {list(dims)} are negative")
    count = numel(dims)  # Python's ints: [2^32, 2^32] is 2^64 elements, not int64's 0
    data = reader.take(count * dtype.itemsize, f"a {dtype.name} tensor {list(dims)}")
    return np.frombuffer(data, dtype).astype(dtype.newbyteorder("="), copy=True).reshape(dims)


def read_lod_tensor(reader):
    """(array, lod as offsets) of the next serialized LoDTensor of a ``_Reader``."""
    lod = _read_lod(reader)
    return read_tensor(reader), lod


def read_tensor(reader):
    """The array of the next serialized tensor (Fluid's TensorToStream: no LoD) of a ``_Reader``."""
    return _take_array(reader, *_tensor_desc(reader))


def read_lod_tensors(data, where, count=None):
    """Every LoDTensor serialized end to end in ``data`` (``count`` of them when given)."""
    reader, out = _Reader(data, where), []
    while reader.at < len(reader.data) if count is None else len(out) < count:
        out.append(read_lod_tensor(reader))
    if reader.at != len(reader.data):
        raise PeError(f"{where}: {len(reader.data) - reader.at} bytes follow the {len(out)} tensors it should hold")
    return out


def write_lod_tensor(array, lod=()):
    """The bytes of ``array`` (with ``lod``, a list of offset lists) serialized as Fluid does."""
    parts = [struct.pack("<IQ", 0, len(lod))]
    for level in lod:
        offsets = np.asarray(level, "<u8").tobytes()
        parts += [struct.pack("<Q", len(offsets)), offsets]
    return b"".join(parts) + write_tensor(array)


def write_tensor(array):
    """The bytes of ``array`` serialized as Fluid's TensorToStream (version, TensorDesc, data; no LoD)."""
    array = np.ascontiguousarray(array)
    if array.dtype.name not in DTYPE_CODES:
        raise PeError(f"a {array.dtype.name} tensor has no Fluid data type ({sorted(DTYPE_CODES)})")
    desc = var_type().TensorDesc(data_type=DTYPE_CODES[array.dtype.name], dims=list(array.shape))
    body = desc.SerializeToString()
    return b"".join([struct.pack("<Ii", 0, len(body)), body, array.astype(array.dtype.newbyteorder("<")).tobytes()])


# -- a SelectedRows as Fluid serializes it: uint32 version 0; uint64 row count, that many int64 rows;
# int64 height; the values as a tensor (TensorToStream) ---------------------------------------------
def write_selected_rows(rows, height, values):
    rows = np.asarray(rows, "<i8")
    return struct.pack("<IQ", 0, rows.size) + rows.tobytes() + struct.pack("<q", int(height)) + write_tensor(values)


def read_selected_rows(data, where):
    """(rows, height, values) of the one SelectedRows serialized in ``data``."""
    reader = _Reader(data, where)
    if reader.unpack("<I", "the version") != 0:
        raise PeError(f"{where}: not a Fluid SelectedRows (its version is not 0)")
    count = reader.unpack("<Q", "the row count")
    rows = np.frombuffer(reader.take(count * 8, "the rows"), "<i8").tolist()
    height = reader.unpack("<q", "the height")
    values = read_tensor(reader)
    if reader.at != len(reader.data):
        raise PeError(f"{where}: {len(reader.data) - reader.at} bytes follow the SelectedRows")
    return rows, height, values
