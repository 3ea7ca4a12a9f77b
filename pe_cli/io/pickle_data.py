"""A pickle read without unpickling: the opcode stream walked by pe itself, knowing only plain
data (dicts with text keys, lists, tuples, ints, floats, booleans, None, text, bytes, the memo) and numpy
arrays of plain numeric dtypes. The numpy names it accepts are never looked up or called (it builds
the arrays itself with numpy's buffer functions): ``numpy.core.multiarray._reconstruct`` with
``numpy.ndarray``, ``numpy.dtype``, ``numpy.core.numeric._frombuffer`` (protocol 5),
``numpy.core.multiarray.scalar``, ``_codecs.encode`` / ``bytes`` (how protocol 2 spells bytes), and
Paddle 2.x's ``eval('data', {'data': array})`` / ``tuple(((name, array),))`` (those exact shapes only).
Anything else (another name, an object or structured dtype, an unknown opcode, a truncated file, a
size that does not match the data) raises Refused. Memory stays within a small multiple of the
data's size: every length is checked against the bytes that are really there.

This module walks the opcodes; pickle_arrays.py knows the numpy names and builds the arrays (and holds
Refused and array_of, offered here). Its readers: pdparams.py (.pdparams/.pdopt), paddle.load, and
paddle.dataset's CIFAR batches."""

import struct

from .pickle_arrays import NAMES, Refused, ArrayStub, DtypeStub, Name, Py2Str, _build, _reduce, array_of

__all__ = ["Refused", "parse_pickle", "parse_pickle_prefix", "parse_data", "array_of"]


class _Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0
        self.stack, self.marks, self.memo = [], [], {}

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise Refused(f"byte {self.pos}: the file ends before the {n} bytes it declares (truncated?)")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def line(self):
        end = self.data.find(b"\n", self.pos, self.pos + 256)
        if end < 0:
            ended = len(self.data) - self.pos < 256
            raise Refused(
                f"byte {self.pos}: "
                + ("the file ends inside a name (truncated?)" if ended else "a name longer than 255 bytes")
            )
        text = self.take(end - self.pos + 1)[:-1]
        return text.decode("ascii", "replace")

    def pop_mark(self):
        if not self.marks:
            raise Refused(f"byte {self.pos}: no mark to pop to")
        at = self.marks.pop()
        items = self.stack[at:]
        del self.stack[at:]
        return items

    def pop(self, n=1):
        if len(self.stack) - (self.marks[-1] if self.marks else 0) < n:
            raise Refused(f"byte {self.pos}: the stack is empty")
        items = self.stack[len(self.stack) - n :]
        del self.stack[len(self.stack) - n :]
        return items


def _text(r, n):
    try:
        return r.take(n).decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise Refused(f"byte {r.pos}: a string that is not UTF-8") from None


def _global(r, module, name):
    tag = NAMES.get((module, name))
    if tag is None:
        raise Refused(f"byte {r.pos}: it names '{module}.{name}', which a file of arrays never holds")
    return Name(tag)


def _long1(r):
    n = r.unpack("<B")
    if n > 8:
        raise Refused(f"byte {r.pos}: an integer of {n} bytes")
    return int.from_bytes(r.take(n), "little", signed=True)


def _set_items(r, items):
    target = r.pop()[0]
    if not isinstance(target, dict) or len(items) % 2:
        raise Refused(f"byte {r.pos}: dict items without a dict")
    for key, value in zip(items[::2], items[1::2]):
        if isinstance(key, Py2Str):
            key = key.decode("latin1")
        if not isinstance(key, str):
            raise Refused(f"byte {r.pos}: a key that is not a variable name")
        target[key] = value
    r.stack.append(target)


def _append(r, items):
    target = r.pop()[0]
    if not isinstance(target, list):
        raise Refused(f"byte {r.pos}: list items without a list")
    target.extend(items)
    r.stack.append(target)


def _int_line(r):
    text = r.line()
    if text in ("00", "01"):  # protocol 0's False and True
        return text == "01"
    try:
        return int(text)
    except ValueError:
        raise Refused(f"byte {r.pos}: an integer {text!r}") from None


def _memo_put(r, index):
    if not r.stack:
        raise Refused(f"byte {r.pos}: nothing to memoize")
    r.memo[index] = r.stack[-1]


def _memo_get(r, index):
    if index not in r.memo:
        raise Refused(f"byte {r.pos}: memo entry {index} was never stored")
    r.stack.append(r.memo[index])


def _build_top(r):
    (state,) = r.pop()
    (obj,) = r.pop()
    _build(obj, state, f"byte {r.pos}")
    r.stack.append(obj)


def _dict(r):
    items = r.pop_mark()
    r.stack.append({})
    _set_items(r, items)


def _stack_global(r):
    module, name = r.pop(2)
    if not isinstance(module, str) or not isinstance(name, str):
        raise Refused(f"byte {r.pos}: a global whose name is not text")
    return _global(r, module, name)


def _protocol(r):
    if r.unpack("<B") not in (2, 3, 4, 5):
        raise Refused(f"byte {r.pos}: an unknown pickle protocol")


class _Stop(Exception):
    pass


def _stop(r):
    raise _Stop


_OPS = {
    0x80: _protocol,
    0x95: lambda r: setattr(r, "pos", -len(r.take(r.unpack("<Q"))) + r.pos),  # FRAME: within the file
    ord("."): _stop,
    ord("}"): lambda r: r.stack.append({}),
    ord("d"): _dict,
    ord("("): lambda r: r.marks.append(len(r.stack)),
    ord("s"): lambda r: _set_items(r, r.pop(2)),
    ord("u"): lambda r: _set_items(r, r.pop_mark()),
    ord(")"): lambda r: r.stack.append(()),
    ord("t"): lambda r: r.stack.append(tuple(r.pop_mark())),
    0x85: lambda r: r.stack.append(tuple(r.pop(1))),
    0x86: lambda r: r.stack.append(tuple(r.pop(2))),
    0x87: lambda r: r.stack.append(tuple(r.pop(3))),
    ord("]"): lambda r: r.stack.append([]),
    ord("l"): lambda r: r.stack.append(r.pop_mark()),
    ord("a"): lambda r: _append(r, r.pop(1)),
    ord("e"): lambda r: _append(r, r.pop_mark()),
    ord("I"): lambda r: r.stack.append(_int_line(r)),
    ord("G"): lambda r: r.stack.append(r.unpack(">d")),
    ord("N"): lambda r: r.stack.append(None),
    0x88: lambda r: r.stack.append(True),
    0x89: lambda r: r.stack.append(False),
    ord("K"): lambda r: r.stack.append(r.unpack("<B")),
    ord("M"): lambda r: r.stack.append(r.unpack("<H")),
    ord("J"): lambda r: r.stack.append(r.unpack("<i")),
    0x8A: lambda r: r.stack.append(_long1(r)),
    ord("X"): lambda r: r.stack.append(_text(r, r.unpack("<I"))),
    0x8C: lambda r: r.stack.append(_text(r, r.unpack("<B"))),
    0x8D: lambda r: r.stack.append(_text(r, r.unpack("<Q"))),
    ord("T"): lambda r: r.stack.append(Py2Str(r.take(r.unpack("<i")))),
    ord("U"): lambda r: r.stack.append(Py2Str(r.take(r.unpack("<B")))),
    ord("B"): lambda r: r.stack.append(bytes(r.take(r.unpack("<I")))),
    ord("C"): lambda r: r.stack.append(bytes(r.take(r.unpack("<B")))),
    0x8E: lambda r: r.stack.append(bytes(r.take(r.unpack("<Q")))),
    0x96: lambda r: r.stack.append(bytes(r.take(r.unpack("<Q")))),  # BYTEARRAY8
    ord("c"): lambda r: r.stack.append(_global(r, r.line(), r.line())),
    0x93: lambda r: r.stack.append(_stack_global(r)),
    ord("R"): lambda r: r.stack.append(_reduce(*r.pop(2), f"byte {r.pos}")),
    ord("b"): _build_top,
    ord("q"): lambda r: _memo_put(r, r.unpack("<B")),
    ord("r"): lambda r: _memo_put(r, r.unpack("<I")),
    0x94: lambda r: _memo_put(r, len(r.memo)),
    ord("h"): lambda r: _memo_get(r, r.unpack("<B")),
    ord("j"): lambda r: _memo_get(r, r.unpack("<I")),
}


def parse_pickle(data):
    """The one object the pickle bytes ``data`` leave on the stack; raises Refused."""
    obj, end = parse_pickle_prefix(data)
    if end != len(data):
        raise Refused(f"byte {end}: data after the end mark")
    return obj


def parse_pickle_prefix(data):
    """(object, end): the one pickle at the start of ``data`` and where its end mark ends (what
    follows is left alone, as pickle.load leaves a stream); raises Refused."""
    r = _Reader(bytes(data) if not isinstance(data, bytes) else data)
    try:
        while True:
            if r.pos >= len(r.data):
                raise Refused(f"byte {r.pos}: the file ends before its end mark (truncated?)")
            code = r.data[r.pos]
            r.pos += 1
            op = _OPS.get(code)
            if op is None:
                raise Refused(
                    f"byte {r.pos - 1}: opcode 0x{code:02x} ({chr(code)!r}), which a file of arrays never holds"
                )
            op(r)
    except _Stop:
        pass
    if len(r.stack) != 1 or r.marks:
        raise Refused("it does not hold one object")
    return r.stack[0], r.pos


def _plain(obj, depth=0):
    if depth > 8:
        raise Refused("containers nested deeper than 8")
    if isinstance(obj, ArrayStub):
        return array_of("an item", obj, "the data")
    if isinstance(obj, (Name, DtypeStub)):
        raise Refused("a numpy name or dtype outside an array")
    if isinstance(obj, dict):
        return {key: _plain(value, depth + 1) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_plain(value, depth + 1) for value in obj)
    return obj


def parse_data(data, prefix=False):
    """The plain data the pickle bytes ``data`` hold, arrays built; raises Refused, whose text says
    what is wrong and where (the caller names the file). ``prefix``: (data, end) of the pickle at the
    start of ``data`` (parse_pickle_prefix)."""
    if prefix:
        obj, end = parse_pickle_prefix(data)
        return _plain(obj), end
    return _plain(parse_pickle(data))
