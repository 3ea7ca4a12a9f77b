"""The numpy half of pickle_data.py's reader: the few numpy names a pickle of arrays may hold (never looked up
or called), the stand-ins the opcode walk puts on its stack for them, and the arrays and dtypes built from
their arguments with numpy's buffer functions, every size checked against the bytes there; and Refused,
the reader's one error."""

import re

import numpy as np

NAMES = {
    ("numpy.core.multiarray", "_reconstruct"): "reconstruct",
    ("numpy._core.multiarray", "_reconstruct"): "reconstruct",
    ("numpy", "ndarray"): "ndarray",
    ("numpy", "dtype"): "dtype",
    ("numpy.core.numeric", "_frombuffer"): "frombuffer",
    ("numpy._core.numeric", "_frombuffer"): "frombuffer",
    ("numpy.core.multiarray", "scalar"): "scalar",
    ("numpy._core.multiarray", "scalar"): "scalar",
    ("_codecs", "encode"): "encode",
    ("__builtin__", "bytes"): "bytes",
    ("builtins", "bytes"): "bytes",
    # paddle.save's LoDTensor eval('data', {'data': array}), Tensor tuple(((name, array),)): those shapes only
    ("builtins", "eval"): "eval",
    ("__builtin__", "eval"): "eval",
    ("builtins", "tuple"): "tuple",
    ("__builtin__", "tuple"): "tuple",
}


_DTYPE_CODE = re.compile(r"^([biufc])(1|2|4|8|16)$")


_MAX_NDIM = 32


class Refused(Exception):
    """What is wrong with the data (the caller makes it one PeError naming the file)."""


class Name:
    def __init__(self, tag):
        self.tag = tag


class Py2Str(bytes):
    """A Python 2 ``str`` (BINSTRING): raw bytes, or a latin-1 text when it is a key."""


class DtypeStub:
    def __init__(self, dtype):
        self.dtype, self.built = dtype, False


class ArrayStub:
    def __init__(self):
        self.array = None


def _dtype(code, where):
    if isinstance(code, bytes):
        code = code.decode("latin1")
    if not isinstance(code, str) or not _DTYPE_CODE.match(code):
        raise Refused(f"{where}: dtype {code!r} is not a plain numeric dtype")
    try:
        return np.dtype(code)
    except TypeError:
        raise Refused(f"{where}: unknown dtype {code!r}") from None


def _as_dtype(obj, where):
    if isinstance(obj, DtypeStub):
        return obj.dtype
    raise Refused(f"{where}: expected a dtype, found {type(obj).__name__}")


def _as_bytes(obj, where):
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj)
    if isinstance(obj, str):
        try:
            return obj.encode("latin1")
        except UnicodeEncodeError:
            raise Refused(f"{where}: array data is not latin-1 text") from None
    raise Refused(f"{where}: expected raw array data, found {type(obj).__name__}")


def _shape(obj, where):
    if (
        not isinstance(obj, tuple)
        or len(obj) > _MAX_NDIM
        or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 2**62 for d in obj)
    ):
        raise Refused(f"{where}: bad array shape {obj!r}"[:200])
    return obj


def _array(raw, dtype, shape, fortran, where):
    """The array of ``shape`` and ``dtype`` over ``raw`` (which must hold exactly its bytes)."""
    raw, shape = _as_bytes(raw, where), _shape(shape, where)
    count = 1
    for d in shape:
        count *= d
    if count * dtype.itemsize != len(raw):
        raise Refused(
            f"{where}: shape {list(shape)} of {dtype} needs {count * dtype.itemsize} bytes, the file holds {len(raw)}"
        )
    flat = np.frombuffer(raw, dtype=dtype, count=count).reshape(shape, order="F" if fortran else "C")
    return flat.astype(dtype.newbyteorder("="), order="K")  # a writable copy in this machine's byte order


def _reduce(func, args, where):
    if not isinstance(func, Name) or not isinstance(args, tuple):
        raise Refused(f"{where}: a call of something that is not a known numpy name")
    tag = func.tag
    if tag == "encode" and len(args) == 2 and isinstance(args[0], str) and args[1] in ("latin1", "latin-1"):
        return _as_bytes(args[0], where)
    if tag == "bytes" and args == ():
        return b""
    if tag == "dtype" and len(args) == 3 and all(a in (0, 1) for a in args[1:]):  # (bools; Python 2 numpy: ints)
        return DtypeStub(_dtype(args[0], where))
    if (
        tag == "reconstruct"
        and len(args) == 3
        and isinstance(args[0], Name)
        and args[0].tag == "ndarray"
        and args[1] == (0,)
        and bytes(_as_bytes(args[2], where)) == b"b"
    ):
        return ArrayStub()
    if tag == "frombuffer" and len(args) == 4 and args[3] in ("C", "F"):
        return _array(args[0], _as_dtype(args[1], where), args[2], args[3] == "F", where)
    if tag == "eval" and args[:1] == ("data",) and len(args) == 2 and isinstance(args[1], dict) and len(args[1]) == 1:
        return array_of("data", args[1].get("data"), where)
    if tag == "tuple" and len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    if tag == "scalar" and len(args) == 2:
        return _array(args[1], _as_dtype(args[0], where), (), False, where)
    raise Refused(
        f"{where}: unexpected arguments for the name '{tag}'" + " (builtins.eval is read only as Paddle's "
        "eval('data', {'data': array}), never called)" * (tag == "eval")
    )


def _build(obj, state, where):
    if isinstance(obj, DtypeStub) and not obj.built and isinstance(state, tuple) and len(state) in (8, 9):
        version, order, subarray, names, fields, elsize, alignment, flags = state[:8]
        metadata = state[8] if len(state) == 9 else None
        order = order.decode("latin1") if isinstance(order, Py2Str) else order
        if (
            version not in (3, 4)
            or order not in ("<", ">", "|", "=")
            or (subarray, names, fields) != (None,) * 3
            or elsize != -1
            or alignment != -1
            or flags != 0
            or metadata not in (None, {})
        ):
            raise Refused(f"{where}: a dtype that is not a plain numeric one")
        if order in "<>":
            obj.dtype = obj.dtype.newbyteorder(order)
        obj.built = True
        return
    if isinstance(obj, ArrayStub) and obj.array is None and isinstance(state, tuple) and len(state) in (4, 5):
        if len(state) == 5:
            if state[0] != 1:
                raise Refused(f"{where}: unknown array state version {state[0]!r}")
            state = state[1:]
        shape, dtype, fortran, raw = state
        if not isinstance(fortran, (bool, int)):
            raise Refused(f"{where}: bad array order flag")
        obj.array = _array(raw, _as_dtype(dtype, where), shape, bool(fortran), where)
        return
    raise Refused(f"{where}: a state for something that is not an array or a dtype")


def array_of(name, obj, where):
    if isinstance(obj, ArrayStub) and obj.array is not None:
        return obj.array
    if isinstance(obj, np.ndarray):
        return obj
    raise Refused(f"{where}: the value of '{name}' is not an array")
