"""Fluid's profile file: the ``paddle.platform.proto.Profile`` message (platform/profiler.proto of
Fluid 1.8) that ``fluid.profiler.stop_profiler(profile_path=...)`` writes and Fluid's
tools/timeline.py turns into a Chrome trace. pe writes one CPU ``Event`` per kernel run (name: the
op type; start_ns, end_ns; device_id 0; sub_device_id: the thread), with Fluid's field numbers:

    Profile { repeated Event events = 1; uint64 start_ns = 2; uint64 end_ns = 3; }
    Event { string name = 1; uint64 start_ns = 2; uint64 end_ns = 3; int64 device_id = 5;
            int64 sub_device_id = 6; EventType type = 8 (CPU = 0); }

The message is small and flat, so it is encoded here directly in protobuf's wire format."""
from ..base.atomic_file import atomic_write

__all__ = ["profile_bytes", "write_profile"]


def _varint(n):
    n &= (1 << 64) - 1                      # int64 negatives take ten bytes, as protobuf encodes them
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
    return (_bytes_field(1, name.encode("utf-8")) + _int_field(2, start_ns) + _int_field(3, end_ns)
            + _int_field(5, 0) + _int_field(6, thread) + _int_field(8, 0))


def profile_bytes(events, start_ns, end_ns):
    """The serialized Profile of ``events``: (name, start_ns, end_ns, thread index) tuples."""
    body = b"".join(_bytes_field(1, _event(*e)) for e in events)
    return body + _int_field(2, start_ns) + _int_field(3, end_ns)


def write_profile(path, events, start_ns, end_ns):
    """Writes the Profile to ``path`` atomically."""
    atomic_write(path, profile_bytes(events, start_ns, end_ns))
