"""Tables read by column NAME: CSV, TSV and JSON Lines.

    table = read_table("data/reviews/reviews.csv", "csv")
    table.raw("review")            # the column as written (strings; JSON values for .jsonl)
    table.numbers(["a", "b"])      # float64 [rows, 2]; missing fields (missing.py) NaN when allowed

Columns are picked by the header's names, so extra columns are ignored and their order does not
matter; a missing column is a DataError naming the file and the column. A CSV/TSV without a header
names its columns 0, 1, ...; a JSON Lines file has one object per line, its keys the columns.
"""

import json
import math
import os
import re

import numpy as np

from ..base.errors import suggest
from . import file_kinds
from .missing import MISSING, is_missing, marker_set
from .ragged import Ragged
from .readers import DataError, check_text_size, csv_rows, require_file

TABLE_FORMATS = ("csv", "tsv", "jsonl")
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_DECIMAL_COMMA = re.compile(r"\s*[+-]?\d+,\d+\s*$")  # 1,5: a spreadsheet's number in a ';' file
_MARKERS = marker_set(MISSING)


def table_format(path):
    """The table format a file name says (csv, tsv, jsonl), or None."""
    return _EXTENSIONS.get(os.path.splitext(path)[1].lower())


class Table:
    """``names``: the columns; ``rows``: one list of fields per row; ``first``: the file line of
    rows[0] (for messages)."""

    def __init__(self, path, names, rows, first):
        self.path, self.names, self.rows, self.first = path, names, rows, first

    def __len__(self):
        return len(self.rows)

    def index(self, name, key=("columns",)):
        if isinstance(name, int) and not isinstance(name, bool) and str(name) not in self.names:
            if not 0 <= name < len(self.names):
                raise DataError(f"{self.path}: column index {name} is out of range ({len(self.names)} columns)", key)
            return name
        if str(name) not in self.names:
            raise DataError(
                f"{self.path} has no column '{name}'",
                key,
                _one_field_hint(self.names)
                or suggest(str(name), self.names) + " (columns are read by the header's names)",
            )
        places = [i + 1 for i, n in enumerate(self.names) if n == str(name)]
        if len(places) > 1:
            shown = ", ".join(map(str, places[:-1])) + f" and {places[-1]}"
            raise DataError(
                f"{self.path}: {len(places)} columns are named '{name}' (columns {shown} of the header)",
                key,
                "rename all but one in the file's header, so that pe reads the one you mean",
            )
        return places[0] - 1

    def raw(self, name, key=("columns",), missing=_MARKERS):
        """One column as an object array, the fields as written; a missing one (``missing``: a
        missing.marker_set) is None."""
        i = self.index(name, key)
        out = np.empty(len(self.rows), dtype=object)
        out[:] = [None if is_missing(row[i], missing) else row[i] for row in self.rows]
        return out

    def numbers(self, names, key=("columns",), allow_missing=False, missing=_MARKERS):
        """float64 [rows, len(names)]; a field that is not a number is a DataError naming its line
        (missing fields, ``missing`` a missing.marker_set, are NaN with ``allow_missing``)."""
        idx = [self.index(n, key) for n in names]
        out = np.empty((len(self.rows), len(idx)), dtype=np.float64)
        for r, row in enumerate(self.rows):
            for c, i in enumerate(idx):
                out[r, c] = _number(row[i], allow_missing, self, r, self.names[i], key, missing)
        return out

    def holds_lists(self, name, key=("columns",)):
        """Whether the column's fields are lists (JSON rows' arrays: an image's pixels, a sequence)."""
        i = self.index(name, key)
        return bool(self.rows) and all(isinstance(row[i], list) for row in self.rows)

    def arrays(self, name, key=("columns",), feed="?"):
        """A column of lists as float64 [rows, ...], or, where the lists' lengths differ, as sequences
        (a Ragged: one per row, its steps the lists' items); a list that is no array of numbers is a
        DataError naming its row."""
        i = self.index(name, key)
        values = []
        for r, row in enumerate(self.rows):
            try:
                values.append(np.asarray(row[i], dtype=np.float64))
            except (TypeError, ValueError):
                raise DataError(
                    f"{self.path}:{self.first + r}: the field of column '{name}' is not an array of numbers",
                    key,
                    "give a list of numbers, or nested lists of one shape",
                ) from None
            if not np.isfinite(values[-1]).all():
                raise DataError(f"{self.path}:{self.first + r}: column '{name}' holds a value that is not finite", key)
        if len({v.shape for v in values}) == 1:
            return np.stack(values)
        if len({v.shape[1:] for v in values if v.ndim}) != 1 or any(v.ndim == 0 for v in values):
            raise DataError(
                f"{self.path}: the arrays of column '{name}' differ in shape beyond their length "
                f"({sorted({v.shape for v in values})[:2]})",
                key,
            )
        return Ragged(np.concatenate(values), np.array([len(v) for v in values], dtype=np.int64), feed)


def _one_field_hint(names):
    """A hint where the header is one field that another delimiter would split."""
    for d, shown in ((",", "','"), (";", "';'"), ("\t", "'\\t'"), ("|", "'|'")):
        if len(names) == 1 and d in names[0]:
            return f"the header is one field, {names[0][:60]!r}: set the source's delimiter: {shown}"
    return None


def _number(field, allow_missing, table, r, column, key, missing=_MARKERS):
    if isinstance(field, (int, float)) and not isinstance(field, bool):
        value = float(field)
    elif is_missing(field, missing):
        if not allow_missing:
            raise DataError(
                f"{table.path}:{table.first + r}: the field {str(field)[:40]!r} of column '{column}' is missing",
                key,
                "give the feed a data.preprocessing (numeric fills a missing value, "
                "label drops its row), or fill the field in",
            )
        value = math.nan
    else:
        try:
            value = float(field)
        except (TypeError, ValueError):
            value = None
    shown = str(field)[:40]
    if value is not None and math.isinf(value):
        raise DataError(
            f"{table.path}:{table.first + r}: the field {shown!r} of column '{column}' is not a finite number",
            key,
            "replace it with a number, or leave it empty and give the feed a numeric "
            "data.preprocessing (its fill replaces missing values)",
        )
    if value is None or (math.isnan(value) and not allow_missing):
        hint = (
            "a decimal comma: pe reads a decimal point (1.5); export the file with '.' as the decimal separator"
            if _DECIMAL_COMMA.match(shown)
            else "give numbers, or preprocess the column (data.preprocessing: "
            "numeric fills missing values; category and text take strings); a marker of a missing value goes in "
            "data.missing"
        )
        raise DataError(
            f"{table.path}:{table.first + r}: the field {shown!r} of column '{column}' is not a number", key, hint
        )
    return value


def read_csv(path, delimiter=",", header=True, key=("path",)):
    """(column names, float64 array [rows, columns]) of a CSV file of numbers."""
    table = read_table(path, "csv", delimiter, header, key)
    return table.names, table.numbers(table.names, key)


def read_table(path, fmt, delimiter=None, header=True, key=("path",)):
    """A Table from a CSV (``delimiter``; None: sniffed, readers.csv_delimiter), TSV or JSON Lines
    file."""
    require_file(path, key)
    wrong = file_kinds.refusal(path, (file_kinds.TEXT, file_kinds.EMPTY, file_kinds.UNKNOWN), f"a {fmt.upper()} table")
    if wrong:
        raise DataError(wrong, key, "a table is a text file: CSV, TSV or JSON Lines")
    if fmt == "jsonl":
        return _jsonl(path, key)
    if fmt == "csv" and delimiter is not None and len(delimiter) != 1:
        raise DataError(
            f"delimiter {delimiter!r} is not one character",
            ("delimiter",),
            "give one character (',', ';', '\\t'), or leave the key out to have it sniffed",
        )
    rows = csv_rows(path, "\t" if fmt == "tsv" else delimiter, key)
    if not rows:
        raise DataError(f"{path}: the file is empty", key, "it needs at least one row")
    if header and len(rows) == 1:
        raise DataError(f"{path}: a header and no rows of data", key, "give it at least one row under the header")
    names = [c.strip() for c in rows[0]] if header else [str(i) for i in range(len(rows[0]))]
    body = rows[1:] if header else rows
    first = 2 if header else 1
    for n, row in enumerate(body):
        check_width(path, n + first, row, names, key)
    return Table(path, names, body, first)


def check_width(path, line, row, names, key=("path",)):
    """A CSV/TSV row with another number of fields than the header is a DataError naming its line."""
    if len(row) != len(names):
        raise DataError(
            f"{path}:{line}: {len(row)} fields, expected {len(names)}", key, "every row needs the same number of fields"
        )


def _jsonl(path, key):
    check_text_size(path, 40, "a JSON Lines file", key)  # as CSV: parsed values take ~40 bytes per byte
    records = []
    try:
        with open(path, encoding="utf-8-sig") as f:
            for line_no, line in enumerate(f, 1):
                if line.strip():
                    records.append(jsonl_record(path, line_no, line, key))
    except UnicodeDecodeError as e:
        raise DataError(
            f"{path}: not UTF-8 text ({e.reason} at byte {e.start})", key, "save the file as UTF-8"
        ) from None
    if not records:
        raise DataError(f"{path}: the file is empty", key, "it needs at least one line")
    return records_table(path, records)


def jsonl_record(path, line_no, line, key=("path",)):
    """The object of one JSON Lines line (a file's, or a row piped in: run/predict_stream.py); anything
    else is a DataError naming ``path``:``line_no``."""
    try:
        record = json.loads(line)
    except ValueError as e:
        raise DataError(f"{path}:{line_no}: not a JSON object ({e})", key, "JSON Lines: one object per line") from None
    if not isinstance(record, dict):
        raise DataError(
            f"{path}:{line_no}: a JSON {type(record).__name__}, not an object",
            key,
            "JSON Lines: one object per line, its keys the columns",
        )
    return record


def records_table(path, records):
    """A Table of ``records`` (dicts, their keys the columns, in any order; a key a record lacks is a
    missing field), named ``path`` in messages: a JSON Lines file's lines, pe serve's request rows."""
    names = list(dict.fromkeys(k for r in records for k in r))
    return Table(path, names, [[r.get(n) for n in names] for r in records], 1)
