"""MATLAB level-5 ``.mat`` files (what ``scipy.io.loadmat`` reads; Paddle's flowers dataset ships
its labels and splits so): the numeric matrices, by name, as numpy arrays of the matrix's class
(double, single, the integer classes) and its dimensions (column-major, as MATLAB stores them).
Compressed variables are inflated with zlib, within the limits of the file's own size. Other
classes (cells, structs, text, sparse) are passed over; asking for one is the caller's error.
Version 7.3 files are HDF5, which this reader refuses."""

import struct
import zlib

import numpy as np

from ..base.errors import PeError
from ..base.dims import numel

__all__ = ["read_mat", "MatError"]

_MI_MATRIX, _MI_COMPRESSED = 14, 15
_MI_DTYPES = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8", 12: "i8", 13: "u8"}
_CLASS_DTYPES = {6: "f8", 7: "f4", 8: "i1", 9: "u1", 10: "i2", 11: "u2", 12: "i4", 13: "u4", 14: "i8", 15: "u8"}
_MAX_INFLATED = 1 << 30


class MatError(PeError):
    """A .mat file this reader cannot read: the message names the file and what is wrong."""


def _elements(data, order, where):
    """(type, payload) of each data element of ``data``."""
    pos = 0
    while pos + 8 <= len(data):
        kind, size = struct.unpack_from(order + "II", data, pos)
        if kind >> 16:  # the small element format: both in 4 bytes
            kind, size = kind & 0xFFFF, kind >> 16
            if size > 4:
                raise MatError(f"{where}: byte {pos}: a small data element of {size} bytes")
            yield kind, data[pos + 4 : pos + 4 + size]
            pos += 8
            continue
        end = pos + 8 + size
        if end > len(data):
            raise MatError(f"{where}: byte {pos}: an element of {size} bytes past the end of the file (truncated?)")
        yield kind, data[pos + 8 : end]
        pos = end if kind == _MI_COMPRESSED else end + (-size % 8)


def _numeric(kind, payload, order, where):
    if kind not in _MI_DTYPES:
        raise MatError(f"{where}: data of element type {kind}, which is not numeric")
    dtype = np.dtype(_MI_DTYPES[kind]).newbyteorder(order)
    if len(payload) % dtype.itemsize:
        raise MatError(f"{where}: {len(payload)} bytes of {dtype.name} data")
    return np.frombuffer(payload, dtype=dtype)


def _matrix(payload, order, where):
    """(name, array) of one miMATRIX element; array None when its class is not numeric."""
    parts = list(_elements(payload, order, where))
    if len(parts) < 3:
        raise MatError(f"{where}: a matrix without its flags, dimensions and name")
    flags = _numeric(*parts[0], order, where)
    dims = [int(d) for d in _numeric(*parts[1], order, where)]
    name = bytes(parts[2][1]).decode("ascii", "replace")
    mx_class = int(flags[0]) & 0xFF
    if mx_class not in _CLASS_DTYPES or len(parts) < 4 or int(flags[0]) & 0x0800:  # not numeric, or complex
        return name, None
    real = _numeric(*parts[3], order, where)
    if any(d < 0 for d in dims) or numel(dims) != real.size:  # Python's ints: no int64 wrap to 0
        raise MatError(f"{where}: variable '{name}': dimensions {dims} do not match its {real.size} values")
    return name, real.astype(_CLASS_DTYPES[mx_class]).reshape(dims, order="F")


def read_mat(path):
    """{name: array} of the numeric matrices of the level-5 .mat file ``path``."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MatError(f"cannot read {path}: {e.strerror or e}") from None
    if data[:8] == b"\x89HDF\r\n\x1a\n" or data[512:520] == b"\x89HDF\r\n\x1a\n":
        raise MatError(f"{path} is a MATLAB 7.3 (HDF5) file; save it with -v7 (level 5) for pe to read it")
    if len(data) < 128 or data[126:128] not in (b"IM", b"MI"):
        raise MatError(f"{path} is not a MATLAB level-5 .mat file (no 'MATLAB 5.0 MAT-file' header)")
    order = "<" if data[126:128] == b"IM" else ">"
    arrays = {}
    for kind, payload in _elements(data[128:], order, path):
        if kind == _MI_COMPRESSED:
            inflater = zlib.decompressobj()
            try:
                payload = inflater.decompress(payload, _MAX_INFLATED)
            except zlib.error as e:
                raise MatError(f"{path}: a compressed variable that does not inflate ({e})") from None
            kind, payload = next(_elements(payload, order, path), (None, b""))
        if kind == _MI_MATRIX:
            name, array = _matrix(payload, order, path)
            if array is not None:
                arrays[name] = array
    return arrays
