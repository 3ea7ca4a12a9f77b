"""Fluid's profile file: the ``paddle.platform.proto.Profile`` message (platform/profiler.proto of
Fluid 1.8) that ``fluid.profiler.stop_profiler(profile_path=...)`` writes and Fluid's
tools/timeline.py turns into a Chrome trace. pe writes one CPU ``Event`` per kernel run (name: the
op type; start_ns, end_ns; device_id 0; sub_device_id: the thread), with Fluid's field numbers:

    Profile { repeated Event events = 1; uint64 start_ns = 2; uint64 end_ns = 3; }
    Event { string name = 1; uint64 start_ns = 2; uint64 end_ns = 3; int64 device_id = 5;
            int64 sub_device_id = 6; EventType type = 8 (CPU = 0); }

The message is small and flat, so it is encoded here directly in protobuf's wire format; its
schema below gives the message classes (``paddle.fluid.proto.profiler.profiler_pb2``) that read it."""

import functools

from ..base.atomic_file import atomic_write
from ..base.fluid_proto import proto_module

__all__ = ["profile_bytes", "write_profile"]

_SCHEMA = """
name: "pe_fluid_profiler.proto" package: "paddle.platform.proto" syntax: "proto2"
message_type { name: "MemCopy" field { name: "bytes" number: 1 label: LABEL_OPTIONAL type: TYPE_UINT64 } }
message_type { name: "Event"
  enum_type { name: "EventType" value { name: "CPU" number: 0 } value { name: "GPUKernel" number: 1 } }
  field { name: "type" number: 8 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".paddle.platform.proto.Event.EventType" }
  field { name: "name" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
  field { name: "start_ns" number: 2 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "end_ns" number: 3 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "sub_device_id" number: 6 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "device_id" number: 5 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "memcopy" number: 7 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".paddle.platform.proto.MemCopy" }
  field { name: "detail_info" number: 9 label: LABEL_OPTIONAL type: TYPE_STRING } }
message_type { name: "Profile"
  field { name: "events" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".paddle.platform.proto.Event" }
  field { name: "start_ns" number: 2 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "end_ns" number: 3 label: LABEL_OPTIONAL type: TYPE_UINT64 } }
"""


@functools.lru_cache(maxsize=1)
def messages():
    """{name: message class} of the profile schema above (Profile, Event, MemCopy)."""
    return proto_module(_SCHEMA)


def _varint(n):
    n &= (1 << 64) - 1  # int64 negatives take ten bytes, as protobuf encodes them
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _int_field(number, value):
    return _varint(number << 3) + _varint(int(value))


def _bytes_field(number, data):
    return _varint((number << 3) | 2) + _varint(len(data)) + data


def _event(name, start_ns, end_ns, thread):
    return (
        _bytes_field(1, name.encode("utf-8"))
        + _int_field(2, start_ns)
        + _int_field(3, end_ns)
        + _int_field(5, 0)
        + _int_field(6, thread)
        + _int_field(8, 0)
    )


def profile_bytes(events, start_ns, end_ns):
    """The serialized Profile of ``events``: (name, start_ns, end_ns, thread index) tuples."""
    body = b"".join(_bytes_field(1, _event(*e)) for e in events)
    return body + _int_field(2, start_ns) + _int_field(3, end_ns)


def write_profile(path, events, start_ns, end_ns):
    """Writes the Profile to ``path`` atomically."""
    atomic_write(path, profile_bytes(events, start_ns, end_ns))
