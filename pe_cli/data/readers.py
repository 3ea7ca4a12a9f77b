"""File readers: .npy, .npz and CSV rows (IDX lives in idx.py, tables by column name in
tables.py). Each returns plain numpy arrays and raises DataError, which names the file and, where it helps, the config key to fix."""
import csv
import os
import stat

import numpy as np

from ..base.errors import PeError


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
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise DataError(f"{path} is not a regular file (a FIFO, device or directory)", key, "give a data file")
    return path


def read_npy(path, key=("path",)):
    require_file(path, key)
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, OSError) as e:
        raise DataError(f"{path}: not a readable .npy file ({e})", key, "save it with numpy.save") from None


def read_npz(path, key=("path",)):
    """All arrays of an .npz archive, by name."""
    require_file(path, key)
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (ValueError, OSError) as e:
        raise DataError(f"{path}: not a readable .npz file ({e})", key, "save it with numpy.savez") from None


def csv_rows(path, delimiter, key):
    """The non-blank rows of a CSV file; an encoding or a field the csv module refuses (larger than
    its limit) is one DataError naming the line."""
    reader = None
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f, delimiter=delimiter)
            return [row for row in reader if row and any(c.strip() for c in row)]
    except UnicodeDecodeError as e:
        raise DataError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})", key,
                        "save the file as UTF-8") from None
    except csv.Error as e:
        line = reader.line_num if reader is not None else "?"
        raise DataError(f"{path}:{line}: {e}", key, "check the quoting and the field sizes of that line") from None
