"""A category feed with ``encoding: one_hot`` (data/preprocessing.py): each of its columns (one, or
a list read side by side) is fitted as a category of its own (its vocabulary, <unknown> first, its
missing values as the feed's ``fill`` says), and a row becomes the columns' one-hot rows side by
side: float32 [N, the vocabulary sizes summed], 1 at each column's id (offset by the sizes of the
columns before it), 0 elsewhere. An ``fc`` takes it as it is; no embedding is needed.

Saved as ``encoding: one_hot`` with ``vocabularies``, one list per column (preprocessing_file.py).
"""

import numpy as np

from .missing import Where
from .readers import DataError


COLUMNS_HINT = {
    "numeric": "e.g. columns: [weight_kg, price]",
    "category": "e.g. columns: island, or encoding: one_hot for a list: [island, sex]",
}


def many_columns(spec):
    """Whether a config entry may read a list of columns: numeric, category with encoding: one_hot."""
    return spec["kind"] == "numeric" or (spec["kind"] == "category" and spec.get("encoding") == "one_hot")


def fields(raw):
    """The raw fields as [N, columns] (a single column's [N] as one column)."""
    x = np.asarray(raw, dtype=object)
    return x.reshape(len(x), -1)


def one_column(raw):
    """A category of ids' fields [N]; more than one column (a source's ``columns`` list) is refused."""
    x = fields(raw)
    if x.shape[1] != 1:
        raise DataError(
            f"a category feed of ids reads one column, got {x.shape[1]}",
            (),
            "give it one column, or encoding: one_hot to read a list of them side by side",
        )
    return x[:, 0]


def fit_one_hot(spec, raw, where, fit_ids):
    """The state of a one-hot category fitted on ``raw`` [N] or [N, columns]; ``fit_ids``(spec, raw,
    where) fits one column as a category of ids."""
    x = fields(raw)
    ids = {**spec, "encoding": "ids"}
    fitted = [fit_ids(ids, x[:, i], Where(where.source, where.columns[i:] or where.columns)) for i in range(x.shape[1])]
    return {
        "min_count": spec["min_count"],
        "fill": spec["fill"],
        "encoding": "one_hot",
        "vocabularies": [state["vocabulary"] for state in fitted],
    }


def width(state):
    """The number of values a one-hot category's sample holds: its vocabulary sizes summed."""
    return sum(len(v) for v in state["vocabularies"])


def apply_one_hot(state, raw, where, apply_ids):
    """float32 [N, width] of ``raw``; ``apply_ids``(state, raw, where) maps one column to its ids."""
    x = fields(raw)
    vocabularies = state["vocabularies"]
    if x.shape[1] != len(vocabularies):
        raise DataError(f"{where}: {x.shape[1]} column(s) per sample, fitted on {len(vocabularies)}", ())
    out = np.zeros((len(x), width(state)), dtype=np.float32)
    rows, offset = np.arange(len(x)), 0
    for i, vocabulary in enumerate(vocabularies):
        ids = apply_ids({**state, "encoding": "ids", "vocabulary": vocabulary}, x[:, i], where)
        out[rows, offset + ids] = 1.0
        offset += len(vocabulary)
    return out


__all__ = ["COLUMNS_HINT", "apply_one_hot", "fields", "fit_one_hot", "many_columns", "one_column", "width"]
