"""File readers: .npy, .npz and CSV (IDX lives in idx.py). Each returns plain numpy arrays and
raises DataError, which names the file and, where it helps, the config key to fix."""
import csv
import os

import numpy as np

from ..errors import PeError


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


def read_csv(path, delimiter=",", header=True, key=("path",)):
    """(column names, float64 array [rows, columns]). Without a header, columns are named 0, 1, ..."""
    require_file(path, key)
    with open(path, newline="", encoding="utf-8") as f:
        rows = [row for row in csv.reader(f, delimiter=delimiter) if row and any(c.strip() for c in row)]
    if not rows:
        raise DataError(f"{path}: the CSV file is empty", key, "it needs at least one row")
    names = [c.strip() for c in rows[0]] if header else [str(i) for i in range(len(rows[0]))]
    body = rows[1:] if header else rows
    for n, row in enumerate(body):
        if len(row) != len(names):
            line = n + (2 if header else 1)
            raise DataError(f"{path}:{line}: {len(row)} fields, expected {len(names)}", key,
                            "every row needs the same number of fields")
    try:
        values = np.array([[float(c) for c in row] for row in body], dtype=np.float64)
    except ValueError as e:
        raise DataError(f"{path}: a field is not a number ({e})", key,
                        "CSV sources hold numbers only; encode categories as integers") from None
    return names, values.reshape(len(body), len(names))
