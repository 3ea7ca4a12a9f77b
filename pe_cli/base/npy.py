"""``.npy`` files and ``.npz`` archives read safely: each array's header (dtype, shape) is read and
checked first, against the bytes the file holds and pe's memory limit (limits.py), so a header
that claims 10^12 rows or a zip bomb costs nothing. Never unpickled (object arrays are refused);
text, complex, structured and date arrays are refused too, as no feed or parameter holds them (a
complex array cast to float would silently drop its imaginary part)."""

import zipfile

import numpy as np

from .errors import PeError
from .limits import check_bytes, regular_file

_KINDS = {"b": "bool", "i": "integer", "u": "unsigned integer", "f": "float"}
_REFUSED = {
    "c": "complex numbers (pe computes in real numbers; save the real and imaginary parts as two arrays)",
    "U": "text (feeds hold numbers; encode the strings as integer ids)",
    "S": "bytes (feeds hold numbers; encode them as integers)",
    "O": "Python objects (pe never unpickles; save a numeric array)",
    "V": "a structured record (save one plain array per field)",
    "M": "dates (save them as integers)",
    "m": "time spans (save them as integers)",
}


class NpyError(PeError):
    """An .npy or .npz file pe does not read: one line naming the file (and the array)."""


def array_header(f, where):
    """(shape, dtype, bytes of data) of the .npy stream ``f`` after reading its header; refuses
    dtypes pe does not read and sizes above the memory limit."""
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise ValueError(f"format version {version[0]}.{version[1]}, which holds only structured arrays")
    except (ValueError, OSError, EOFError, SyntaxError) as e:
        raise NpyError(f"{where}: not a readable .npy array ({e}); save it with numpy.save") from None
    if dtype.kind not in _KINDS:
        what = _REFUSED.get(dtype.kind, f"dtype {dtype}")
        raise NpyError(f"{where}: the array holds {what}; pe reads bool, integer and float arrays only")
    count = 1
    for d in shape:
        count *= int(d)
    nbytes = count * dtype.itemsize
    check_bytes(nbytes, f"{where}: an array of shape {list(shape)} ({dtype})")
    return shape, dtype, nbytes


def read_npy(path):
    """The array of an .npy file, its header checked against the file's size first."""
    regular_file(path, ".npy file")
    with open(path, "rb") as f:
        shape, _, nbytes = array_header(f, path)
        left = _left(f)
        if nbytes != left:
            raise NpyError(
                f"{path}: its header says shape {list(shape)} ({nbytes:,} bytes of data) but the file "
                f"holds {left:,}; the file is truncated or not what numpy.save wrote"
            )
        f.seek(0)
        return np.lib.format.read_array(f, allow_pickle=False)


def _left(f):
    at = f.tell()
    end = f.seek(0, 2)
    f.seek(at)
    return end - at


def read_npz(path):
    """{name: array} of an .npz archive; every member's header is checked, and all their sizes
    together against the memory limit, before any array is read."""
    regular_file(path, ".npz file")
    try:
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            total = 0
            for m in members:
                with archive.open(m) as f:
                    total += array_header(f, f"{path} [{m.filename}]")[2]
            check_bytes(total, f"{path}: its {len(members)} arrays together")
            out = {}
            for m in members:
                with archive.open(m) as f:
                    out[m.filename[:-4] if m.filename.endswith(".npy") else m.filename] = _member(f, path, m)
            return out
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as e:
        raise NpyError(f"{path}: not a readable .npz archive ({e}); save it with numpy.savez") from None


def _member(f, path, member):
    try:
        return np.lib.format.read_array(f, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
        raise NpyError(f"{path} [{member.filename}]: truncated or damaged ({e})") from None
