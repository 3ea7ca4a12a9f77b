"""Writing Fluid 1.8's ``.pdparams`` / ``.pdopt`` files: the protocol-2 pickle opcodes that
``pickle.dump(dict_of_arrays, f, protocol=2)`` gives under Python 3 and numpy 1.x (names
``numpy.core.multiarray._reconstruct``, bytes as ``_codecs.encode``), written here opcode by opcode
from plain arrays, so Fluid 1.8 reads pe's files with its ``pickle.load`` (pdparams.py reads them
back without unpickling). Arrays are written in C order."""
import struct

import numpy as np

from ..base.errors import PeError

__all__ = ["write_state", "write_object"]



def _w_int(n):
    if 0 <= n < 256:
        return b"K" + bytes([n])
    if 0 <= n < 65536:
        return b"M" + struct.pack("<H", n)
    if -2 ** 31 <= n < 2 ** 31:
        return b"J" + struct.pack("<i", n)
    raw = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw


def _w_text(text):
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) >= 2 ** 32:
        raise PeError("a value is too large for Fluid's protocol-2 .pdparams format (4 GiB of text per variable)")
    return b"X" + struct.pack("<I", len(raw)) + raw


def _w_tuple(items):
    if len(items) == 0:
        return b")"
    if len(items) <= 3:
        return b"".join(items) + bytes([0x84 + len(items)])
    return b"(" + b"".join(items) + b"t"


def _w_global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _w_bytes(raw):
    if not raw:
        return _w_global("__builtin__", "bytes") + b")R"
    return _w_global("_codecs", "encode") + _w_text(raw.decode("latin1")) + _w_text("latin1") + b"\x86R"


def _w_dtype(dtype):
    if dtype.kind not in "biufc" or dtype.fields is not None or dtype.subdtype is not None:
        raise PeError(f"a variable of dtype {dtype} cannot be written to a .pdparams file")
    order = "|" if dtype.itemsize == 1 else (">" if dtype.byteorder == ">" else "<")
    if dtype.byteorder == "=" and np.little_endian is False:
        order = ">"
    state = b"(" + _w_int(3) + _w_text(order) + b"NNN" + _w_int(-1) + _w_int(-1) + _w_int(0) + b"t"
    return (_w_global("numpy", "dtype") + _w_text(f"{dtype.kind}{dtype.itemsize}") + b"\x89\x88\x87R"
            + state + b"b")


def _w_array(array):
    array = array if array.flags.c_contiguous else array.copy(order="C")   # (ascontiguousarray makes 0-d 1-d)
    head = (_w_global("numpy.core.multiarray", "_reconstruct") + _w_global("numpy", "ndarray")
            + _w_int(0) + b"\x85" + _w_bytes(b"b") + b"\x87R")
    state = (_w_int(1) + _w_tuple([_w_int(int(d)) for d in array.shape]) + _w_dtype(array.dtype) + b"\x89"
             + _w_bytes(array.tobytes()))
    return head + b"(" + state + b"tb"


def write_state(f, arrays):
    """Writes ``arrays`` (name -> ndarray) to the binary file ``f`` as Fluid 1.8's save does."""
    f.write(b"\x80\x02}")
    if arrays:
        f.write(b"(")
        for name, array in arrays.items():
            f.write(_w_text(str(name)))
            f.write(_w_array(np.asarray(array)))
        f.write(b"u")
    f.write(b".")


def _w_object(obj, depth=0):
    if depth > 8:
        raise PeError("paddle.save: containers nested deeper than 8 (pe's reader refuses them)")
    if isinstance(obj, (np.ndarray, np.generic)):
        return _w_array(np.asarray(obj))
    if obj is None or isinstance(obj, bool):
        return {None: b"N", True: b"\x88", False: b"\x89"}[obj]
    if isinstance(obj, int):
        return _w_int(obj)
    if isinstance(obj, float):
        return b"G" + struct.pack(">d", obj)
    if isinstance(obj, str):
        return _w_text(obj)
    if isinstance(obj, bytes):
        return _w_bytes(obj)
    if isinstance(obj, dict):
        if not all(isinstance(k, str) for k in obj):
            raise TypeError("paddle.save: pe saves dicts whose keys are text (names), as Paddle's state dicts")
        items = b"".join(_w_object(k, depth + 1) + _w_object(v, depth + 1) for k, v in obj.items())
        return b"}" + (b"(" + items + b"u" if obj else b"")
    if isinstance(obj, list):
        return b"]" + (b"(" + b"".join(_w_object(v, depth + 1) for v in obj) + b"e" if obj else b"")
    if isinstance(obj, tuple):
        return _w_tuple([_w_object(v, depth + 1) for v in obj])
    raise TypeError(f"paddle.save: cannot save a {type(obj).__name__} (pe saves numbers, text, arrays and "
                    f"tensors in dicts, lists and tuples)")


def write_object(f, obj):
    """Writes ``obj`` (plain data: dicts, lists, tuples, numbers, text, bytes, None and numpy arrays) to the
    binary file ``f`` as protocol-2 pickle opcodes, which pickle.load and pickle_data.py read back."""
    f.write(b"\x80\x02" + _w_object(obj) + b".")
