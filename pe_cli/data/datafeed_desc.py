"""``DataFeedDesc``: the description of a MultiSlot data file, as seed 004 documents it: a protobuf
text message read from a file,

    name: "MultiSlotDataFeed"
    batch_size: 2
    multi_slot_desc {
      slots { name: "words" type: "uint64" is_dense: false is_used: true }
      slots { name: "label" type: "uint64" is_dense: false is_used: true }
    }

changed at run time with ``set_batch_size``, ``set_dense_slots`` and ``set_use_slots``, and printed
back with ``desc()`` (which loads back unchanged). The text is parsed and printed by the protobuf
library's ``text_format`` against the message types below, declared here with protobuf's descriptor
API (the fields of Fluid's data_feed.proto: Slot, MultiSlotDesc, DataFeedDesc).

Where the seed and Fluid's code disagree the seed wins and Fluid's form is accepted too:
``set_dense_slots('wd')`` and ``set_use_slots('wd')`` take one name or a list of names (Fluid's code
iterated the string's characters).
"""

import functools
import os

from ..base.errors import PeError
from ..base.limits import file_kind

SLOT_TYPES = ("uint64", "float")
MAX_DESC_BYTES = 1 << 20


@functools.lru_cache(maxsize=1)
def message_class():
    """The DataFeedDesc message class (built once, on first use)."""
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    except ImportError:
        raise PeError("DataFeedDesc needs the protobuf package: pip install protobuf") from None
    f = descriptor_pb2.FileDescriptorProto(name="pe_data_feed.proto", package="pe.datafeed", syntax="proto2")
    T, L = descriptor_pb2.FieldDescriptorProto, descriptor_pb2.FieldDescriptorProto

    def message(name, *fields):
        m = f.message_type.add(name=name)
        for number, (field, kind, label, default, type_name) in enumerate(fields, start=1):
            spec = m.field.add(name=field, number=number, type=kind, label=label)
            if default is not None:
                spec.default_value = default
            if type_name:
                spec.type_name = type_name

    opt, req, rep = L.LABEL_OPTIONAL, L.LABEL_REQUIRED, L.LABEL_REPEATED
    message(
        "Slot",
        ("name", T.TYPE_STRING, req, None, None),
        ("type", T.TYPE_STRING, req, None, None),
        ("is_dense", T.TYPE_BOOL, opt, "false", None),
        ("is_used", T.TYPE_BOOL, opt, "false", None),
        ("shape", T.TYPE_INT32, rep, None, None),
    )
    message("MultiSlotDesc", ("slots", T.TYPE_MESSAGE, rep, None, ".pe.datafeed.Slot"))
    message(
        "DataFeedDesc",
        ("name", T.TYPE_STRING, opt, None, None),
        ("batch_size", T.TYPE_INT32, opt, "32", None),
        ("multi_slot_desc", T.TYPE_MESSAGE, opt, None, ".pe.datafeed.MultiSlotDesc"),
        ("pipe_command", T.TYPE_STRING, opt, None, None),
        ("thread_num", T.TYPE_INT32, opt, None, None),
        ("rank_offset", T.TYPE_STRING, opt, None, None),
        ("pv_batch_size", T.TYPE_INT32, opt, "32", None),
        ("input_type", T.TYPE_INT32, opt, "0", None),
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("pe.datafeed.DataFeedDesc"))


class DataFeedDesc:
    """The data feed of an AsyncExecutor run (seed 004). ``proto_file``: a text-format message."""

    def __init__(self, proto_file):
        self.proto_file = proto_file
        self.proto_desc = _parse(_read(proto_file), proto_file)
        self._check()

    # -- the seed's API ---------------------------------------------------------------------------

    def set_batch_size(self, batch_size):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise PeError(f"DataFeedDesc.set_batch_size: expected a positive integer, got {batch_size!r}")
        self.proto_desc.batch_size = batch_size

    def set_dense_slots(self, dense_slots_name):
        """The named slots become dense (fed as Tensors; the others stay LoDTensors)."""
        for slot in self._slots(dense_slots_name, "set_dense_slots"):
            slot.is_dense = True

    def set_use_slots(self, use_slots_name):
        """The named slots are read for training (by default no slot is)."""
        for slot in self._slots(use_slots_name, "set_use_slots"):
            slot.is_used = True

    def desc(self):
        """The message as protobuf text (loads back into a DataFeedDesc unchanged)."""
        from google.protobuf import text_format

        return text_format.MessageToString(self.proto_desc)

    # -- what the reader uses ---------------------------------------------------------------------

    @property
    def batch_size(self):
        return self.proto_desc.batch_size

    @property
    def slots(self):
        """(name, type, is_dense, is_used) of every slot, in the order of a data line."""
        return [(s.name, s.type, s.is_dense, s.is_used) for s in self.proto_desc.multi_slot_desc.slots]

    def _slots(self, names, method):
        names = [names] if isinstance(names, str) else list(names)
        by_name = {s.name: s for s in self.proto_desc.multi_slot_desc.slots}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            raise PeError(
                f"DataFeedDesc.{method}: {self.proto_file} has no slot {unknown[0]!r}; "
                f"its slots are {', '.join(by_name) or 'none'}"
            )
        return [by_name[n] for n in names]

    def _check(self):
        where = self.proto_file
        if self.proto_desc.batch_size < 1:
            raise PeError(f"{where}: batch_size must be >= 1, got {self.proto_desc.batch_size}")
        seen = set()
        for slot in self.proto_desc.multi_slot_desc.slots:
            if slot.type not in SLOT_TYPES:
                raise PeError(f"{where}: slot '{slot.name}' has type '{slot.type}'; use uint64 (ids) or float")
            if slot.name in seen:
                raise PeError(f"{where}: slot '{slot.name}' is declared twice")
            seen.add(slot.name)

    def __repr__(self):
        return f"DataFeedDesc({self.proto_file!r})"


def _read(path):
    kind = file_kind(path) if isinstance(path, (str, os.PathLike)) else "not a path"
    if kind is not None:
        raise PeError(
            f"DataFeedDesc: {path} is not a file ({kind}; give the path of a text-format data feed description)"
        )
    if os.path.getsize(path) > MAX_DESC_BYTES:
        raise PeError(f"{path}: a data feed description over 1 MiB is not one (check the path)")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError:
        raise PeError(f"{path}: not a text file (a data feed description is protobuf text)") from None


def _parse(text, path):
    from google.protobuf import text_format

    message = message_class()()
    try:
        text_format.Parse(text, message)
    except text_format.ParseError as e:
        line, column = getattr(e, "GetLine", lambda: None)(), getattr(e, "GetColumn", lambda: None)()
        where = f"{path}:{line}:{column}" if line else str(path)
        detail = str(e).split(" : ", 1)[-1] if line else str(e)
        raise PeError(f"{where}: {detail}") from None
    missing = message.FindInitializationErrors()
    if missing:
        raise PeError(f"{path}: missing required field {missing[0]} (each slot needs a name and a type)")
    return message
