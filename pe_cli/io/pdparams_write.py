"""Writing Fluid 1.8's ``.pdparams`` / ``.pdopt`` files: the protocol-2 pickle that
``pickle.dump(dict_of_arrays, f, protocol=2)`` gives under Python 3 and numpy 1.x (names
``numpy.core.multiarray._reconstruct``, bytes as ``_codecs.encode``), written here opcode by opcode
from plain arrays, so Fluid 1.8 reads pe's files with its ``pickle.load`` (pdparams.py reads them
back without unpickling). Arrays are written in C order.

The bytes are CPython's: its pickler memoizes every object it writes (BINPUT), and writes an object
it meets again as a reference (BINGET). Met again are the module globals, numpy's dtype objects
(one per built-in type), the ``b'b'`` constant of numpy's reduce, the interned ``'latin1'``, and
what CPython caches: one-character strings (a byte order, a 1-byte array's data) and bytes of
length 0 or 1. So pe's file of a program's state is Fluid's file of the same state, byte for byte."""

import struct

import numpy as np

from ..base.errors import PeError

__all__ = ["write_state", "write_object"]


def _w_int(n):
    if 0 <= n < 256:
        return b"K" + bytes([n])
    if 0 <= n < 65536:
        return b"M" + struct.pack("<H", n)
    if -(2**31) <= n < 2**31:
        return b"J" + struct.pack("<i", n)
    raw = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw


class _Pickler:
    """Protocol-2 opcodes with CPython's memo: ``shared`` keys name the objects met again."""

    def __init__(self):
        self.memo = {}
        self.count = 0

    def put(self, key=None):
        index, self.count = self.count, self.count + 1
        if key is not None:
            self.memo[key] = index
        return b"q" + bytes([index]) if index < 256 else b"r" + struct.pack("<I", index)

    def get(self, key):
        index = self.memo.get(key)
        if index is None:
            return None
        return b"h" + bytes([index]) if index < 256 else b"j" + struct.pack("<I", index)

    def text(self, text, interned=False):
        """A str; ``interned``: one CPython shares (the codec name), as are its cached 1-character strings."""
        shared = ("str", text) if interned or (len(text) <= 1 and all(ord(c) < 256 for c in text)) else None
        got = shared and self.get(shared)
        if got:
            return got
        raw = text.encode("utf-8", "surrogatepass")
        if len(raw) >= 2**32:
            raise PeError("a value is too large for Fluid's protocol-2 .pdparams format (4 GiB of text per variable)")
        return b"X" + struct.pack("<I", len(raw)) + raw + self.put(shared)

    def tuple(self, items):
        if len(items) == 0:
            return b")"
        body = b"".join(items) + bytes([0x84 + len(items)]) if len(items) <= 3 else b"(" + b"".join(items) + b"t"
        return body + self.put()

    def global_(self, module, name):
        return self.get(("global", module, name)) or b"c" + module.encode() + b"\n" + name.encode() + b"\n" + self.put(
            ("global", module, name)
        )

    def bytes_(self, raw):
        shared = ("bytes", raw) if len(raw) <= 1 else None
        got = shared and self.get(shared)
        if got:
            return got
        if not raw:
            return self.global_("__builtin__", "bytes") + b")R" + self.put(shared)
        func = self.global_("_codecs", "encode")  # (written, so memoized, before its arguments)
        args = self.tuple([self.text(raw.decode("latin1")), self.text("latin1", interned=True)])
        return func + args + b"R" + self.put(shared)

    def dtype(self, dtype):
        if dtype.kind not in "biufc" or dtype.fields is not None or dtype.subdtype is not None:
            raise PeError(f"a variable of dtype {dtype} cannot be written to a .pdparams file")
        order = "|" if dtype.itemsize == 1 else (">" if dtype.byteorder == ">" else "<")
        if dtype.byteorder == "=" and np.little_endian is False:
            order = ">"
        key = ("dtype", dtype.str)
        got = self.get(key)
        if got:
            return got
        func = self.global_("numpy", "dtype")
        args = self.tuple([self.text(f"{dtype.kind}{dtype.itemsize}"), b"\x89", b"\x88"])
        made = func + args + b"R" + self.put(key)
        state = self.tuple([_w_int(3), self.text(order), b"N", b"N", b"N", _w_int(-1), _w_int(-1), _w_int(0)])
        return made + state + b"b"

    def array(self, array):
        array = array if array.flags.c_contiguous else array.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)
        func = self.global_("numpy.core.multiarray", "_reconstruct")
        args = self.tuple([self.global_("numpy", "ndarray"), self.tuple([_w_int(0)]), self.bytes_(b"b")])
        head = func + args + b"R" + self.put()
        state = self.tuple(
            [
                _w_int(1),
                self.tuple([_w_int(int(d)) for d in array.shape]),
                self.dtype(array.dtype),
                b"\x89",
                self.bytes_(array.tobytes()),
            ]
        )
        return head + state + b"b"


def write_state(f, arrays):
    """Writes ``arrays`` (name -> ndarray) to the binary file ``f`` as Fluid 1.8's save does."""
    p = _Pickler()
    body = b"}" + p.put()
    pairs = []
    for name, array in arrays.items():
        key = p.text(str(name))  # (each pair in order: the memo numbers follow the stream)
        pairs.append((key, p.array(np.asarray(array))))
    if len(pairs) == 1:
        body += pairs[0][0] + pairs[0][1] + b"s"
    for start in range(0, len(pairs) if len(pairs) > 1 else 0, 1000):
        body += b"(" + b"".join(k + v for k, v in pairs[start : start + 1000]) + b"u"
    f.write(b"\x80\x02" + body + b".")


def _w_object(p, obj, depth=0):
    if depth > 8:
        raise PeError("paddle.save: containers nested deeper than 8 (pe's reader refuses them)")
    if isinstance(obj, (np.ndarray, np.generic)):
        return p.array(np.asarray(obj))
    if obj is None or isinstance(obj, bool):
        return {None: b"N", True: b"\x88", False: b"\x89"}[obj]
    if isinstance(obj, int):
        return _w_int(obj)
    if isinstance(obj, float):
        return b"G" + struct.pack(">d", obj)
    if isinstance(obj, str):
        return p.text(obj)
    if isinstance(obj, bytes):
        return p.bytes_(obj)
    if isinstance(obj, dict):
        if not all(isinstance(k, str) for k in obj):
            raise TypeError("paddle.save: pe saves dicts whose keys are text (names), as Paddle's state dicts")
        head = b"}" + p.put()
        items = b"".join(_w_object(p, k, depth + 1) + _w_object(p, v, depth + 1) for k, v in obj.items())
        return head + (b"(" + items + b"u" if obj else b"")
    if isinstance(obj, list):
        head = b"]" + p.put()
        return head + (b"(" + b"".join(_w_object(p, v, depth + 1) for v in obj) + b"e" if obj else b"")
    if isinstance(obj, tuple):
        return p.tuple([_w_object(p, v, depth + 1) for v in obj])
    raise TypeError(
        f"paddle.save: cannot save a {type(obj).__name__} (pe saves numbers, text, arrays and "
        f"tensors in dicts, lists and tuples)"
    )


def write_object(f, obj):
    """Writes ``obj`` (plain data: dicts, lists, tuples, numbers, text, bytes, None and numpy arrays) to the
    binary file ``f`` as protocol-2 pickle opcodes, which pickle.load and pickle_data.py read back."""
    f.write(b"\x80\x02" + _w_object(_Pickler(), obj) + b".")
