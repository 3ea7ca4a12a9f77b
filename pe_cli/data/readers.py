"""File readers: .npy, .npz and CSV rows (IDX lives in idx.py, tables by column name in
tables.py). Each returns plain numpy arrays and raises DataError, which names the file and, where it helps, the config key to fix."""

import csv
import os


from ..base import npy
from ..base.errors import PeError
from ..base.limits import LimitError, check_bytes, file_kind
from . import file_kinds


class DataError(PeError):
    """A data file that is missing, unreadable or does not fit the model. ``key`` is the config key
    (inside the data source) the problem is about, e.g. ('columns', 'image')."""

    def __init__(self, message, key=(), hint=None):
        super().__init__(message)
        self.message = message
        self.key = tuple(key)
        self.hint = hint


def require_file(path, key=("path",)):
    if not os.path.exists(path):
        directory = os.path.dirname(path) or "."
        hint = f"no such file in {directory}/" if os.path.isdir(directory) else f"{directory}/ does not exist"
        raise DataError(f"data file {path} does not exist", key, hint)
    kind = file_kind(path)
    if kind is not None:
        raise DataError(f"{path} is {kind}, not a regular file, so pe does not read it", key, "give a data file")
    return path


def read_npy(path, key=("path",)):
    """The array of an .npy file (header checked first: base/npy.py)."""
    require_file(path, key)
    wrong = file_kinds.refusal(path, (file_kinds.NPY,), "an NPY array")
    if wrong:
        raise DataError(wrong, key, "save arrays with numpy.save")
    try:
        return npy.read_npy(path)
    except PeError as e:
        raise DataError(str(e), key) from None


def read_npz(path, key=("path",)):
    """All arrays of an .npz archive, by name (headers checked first: base/npy.py)."""
    require_file(path, key)
    wrong = file_kinds.refusal(path, file_kinds.ZIPS, "an NPZ archive")
    if wrong:
        raise DataError(wrong, key, "save arrays with numpy.savez")
    try:
        return npy.read_npz(path)
    except PeError as e:
        raise DataError(str(e), key) from None


def check_text_size(path, per_byte, what, key=("path",)):
    """Refuses a text file whose parsed values would pass pe's memory limit (limits.py): ``per_byte``
    is the bytes of memory a reader needs per byte of the file. For every text reader (CSV,
    MultiSlot, ...)."""
    try:
        check_bytes(os.path.getsize(path) * per_byte, f"{path} ({what} of {os.path.getsize(path):,} bytes)")
    except LimitError as e:
        raise DataError(str(e), key) from None


def csv_rows(path, delimiter, key):
    """The non-blank rows of a CSV file (a UTF-8 byte order mark, as Excel's "CSV UTF-8" writes,
    dropped); ``delimiter`` None: sniffed (csv_delimiter). An encoding or a field the csv module
    refuses (larger than its limit) is one DataError naming the line."""
    reader = None
    check_text_size(path, 40, "a CSV file", key)  # measured: 20 MB of 1-digit fields took 780 MB
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            if delimiter is None:
                delimiter = csv_delimiter(f.read(_SNIFF_CHARS))
                f.seek(0)
            reader = csv.reader(f, delimiter=delimiter)
            return [row for row in reader if row and any(c.strip() for c in row)]
    except UnicodeDecodeError as e:
        raise DataError(
            f"{path}: not UTF-8 text ({e.reason} at byte {e.start})", key, "save the file as UTF-8"
        ) from None
    except csv.Error as e:
        line = reader.line_num if reader is not None else "?"
        raise DataError(f"{path}:{line}: {e}", key, "check the quoting and the field sizes of that line") from None


_SNIFF_CHARS = 64 * 1024
_OTHER_DELIMITERS = ";\t|"


def csv_delimiter(sample):
    """The field separator of a CSV file whose text begins with ``sample``: ',' when its first line
    splits on ','; else the one of ; tab | that the standard library's csv.Sniffer finds (the same
    number of fields on every line sampled) and that splits the first line; else ','."""
    lines = sample.splitlines()[:-1] if len(sample) >= _SNIFF_CHARS else sample.splitlines()  # whole lines
    lines = [line for line in lines if line.strip()][:50]
    if not lines or len(next(csv.reader(lines[:1]))) > 1:
        return ","
    try:
        found = csv.Sniffer().sniff("\n".join(lines), delimiters=_OTHER_DELIMITERS).delimiter
    except csv.Error:
        return ","
    return found if len(next(csv.reader(lines[:1], delimiter=found))) > 1 else ","
