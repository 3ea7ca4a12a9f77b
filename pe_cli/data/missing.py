"""Missing values in tables: which fields are missing, and what pe does with a row whose label is.

A field is missing when it is JSON null or, stripped and with case ignored, one of the markers:
``data.missing`` (default: empty, NA, N/A, NaN, null, None, ?), or a preprocessed feed's own
``missing:`` list. Each kind then handles it (data/preprocessing.py): numeric fills it, category
maps it to its ``fill`` value or the unknown id 0, text reads it as empty text, image refuses it, and
a row whose label is missing (a ``label`` feed's, or any feed a layer takes as its ``label``: a
regression's numeric target too) is dropped (``data.on_missing_label: drop``, counted on stderr) or
refused (``error``). Another feed without preprocessing refuses a missing field.

Columns that teach nothing, found when preprocessing is fitted on the training rows: one missing in
every row is refused naming the column and the file; one of a single value gets a warning.
"""

import sys
from dataclasses import dataclass, field

import numpy as np

from .readers import DataError

MISSING = ("", "NA", "N/A", "NaN", "null", "None", "?")
LABEL_POLICIES = ("drop", "error")


def marker_set(markers):
    """The markers as they are compared: stripped, lowercase."""
    return frozenset(str(m).strip().lower() for m in markers)


def is_missing(value, markers):
    """True for None and a string that is one of ``markers`` (a marker_set)."""
    return value is None or (isinstance(value, str) and value.strip().lower() in markers)


@dataclass(frozen=True)
class Missing:
    """What a table source reads as missing: ``default`` markers, ``feeds`` {feed: its own markers};
    ``on_label`` drop or error for a row whose label is missing: a ``label`` feed's, or one of
    ``labels`` (the feeds the model takes as a label: a regression's numeric target too)."""

    default: tuple = MISSING
    feeds: dict = field(default_factory=dict)
    on_label: str = "drop"
    labels: frozenset = frozenset()

    def markers(self, feed):
        own = self.feeds.get(feed)
        return marker_set(self.default if own is None else own)


def category_fill(fill):
    """The value a category's ``fill`` names, as text (a YAML 3 or 3.0: '3'), or None."""
    if isinstance(fill, float) and fill.is_integer():
        fill = int(fill)
    return None if fill is None else str(fill)


def note(text):
    """A line the user should see whatever -q says (a dropped row count, a constant column)."""
    print(f"pe: {text}", file=sys.stderr, flush=True)


def drop_missing_labels(out, labels, table, policy):
    """``out`` {feed: column} without the rows whose label feed (``labels`` {feed: column name}) is
    missing (None): dropped with a count on stderr, or refused (``policy`` error)."""
    gone = np.zeros(len(table), dtype=bool)
    for feed, column in labels.items():
        lost = _lost(out[feed])
        if lost.any() and policy == "error":
            r = int(np.argmax(lost))
            raise DataError(
                f"{table.path}:{table.first + r}: the label {column} is missing ({int(lost.sum())} "
                f"of {len(lost)} rows)",
                ("columns", feed),
                "fill it in, or set data.on_missing_label: drop to train without those rows",
            )
        gone |= lost
    if not gone.any():
        return out
    names = ", ".join(labels.values())
    if gone.all():
        raise DataError(
            f"{table.path}: every one of its {len(gone)} rows has no {names}",
            ("columns",),
            "give the label column values (missing markers: data.missing)",
        )
    note(f"dropped {int(gone.sum())} of {len(gone)} rows of {table.path}: no {names}")
    keep = ~gone
    return {f: v[keep] for f, v in out.items()}


def _lost(values):
    """Per row: is the field missing (None in fields as written, NaN in numbers)?"""
    if values.dtype == object:
        return np.array([v is None for v in values], dtype=bool)
    return np.isnan(values.reshape(len(values), -1)).any(axis=1)


class Where:
    """The training file and a feed's column names, for the messages of a fit."""

    def __init__(self, source, columns):
        self.source, self.columns = source, columns

    def column(self, i=0):
        return f"column '{self.columns[min(i, len(self.columns) - 1)]}' of {self.source}"


EMPTY_HINT = "fill it in, or leave it out of the model (a column without values teaches nothing)"
_SCALED = {
    "standardize": "its std is 0: pe divides by 1, so the feed is 0 in every training row",
    "zscore": "its std is 0: pe divides by 1, so the feed is 0 in every training row",
    "minmax": "its max is its min: pe divides by 1, so the feed is 0 in every training row",
}


def check_numbers(x, scaling, where):
    """Each column of ``x`` [rows, columns] (NaN: missing): all missing refused, one value warned of,
    saying what ``scaling`` makes of it."""
    for i, c in enumerate(x.T):
        seen = c[~np.isnan(c)]
        if not seen.size:
            raise DataError(f"{where.column(i)} is missing in every row", (), EMPTY_HINT)
        if seen.min() == seen.max():
            note(
                f"warning: {where.column(i)} has the one value {seen[0]:g} in every training row ("
                f"{_SCALED.get(scaling, 'the feed is constant')}; it teaches the model nothing)"
            )


def check_values(values, where):
    """A category column's values (None: missing), as check_numbers."""
    seen = {v for v in values if v is not None}
    if not seen:
        raise DataError(f"{where.column()} is missing in every row", (), EMPTY_HINT)
    if len(seen) == 1:
        note(
            f"warning: {where.column()} has the one value {next(iter(seen))[:40]!r} in every training row "
            "(it teaches the model nothing)"
        )
