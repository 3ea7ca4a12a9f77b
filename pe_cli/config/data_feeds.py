"""Feeds from data.preprocessing: a feed the model file does not declare, which the run config's
``data.preprocessing`` names, is declared as its kind gives it (docs/CONFIG.md, "Feeds from the
preprocessing"), so a model over raw columns need not repeat their shapes and dtypes:

    numeric           float32 [k], k the number of its columns (``columns: [a, b, c]``; else 1)
    date              float32 [13]: year, month, day, weekday, hour and their cyclic parts
    category, label   int64 [1]; a category with encoding: one_hot float32 [auto], its width (the
                      vocabulary sizes summed) filled once fitted (sizes.py's fill_feed_widths)
    text              int64 [1], lod_level 1 (a ragged sequence); sequence: padded: int64
                      [max_length], and its lengths_feed int64 [1]
    image             float32 [channels, height, width] when crop or size gives the height and width
                      (channels: 1 for mode L, else 3); else the model file must declare it (a
                      model that uses it undeclared is told to give size, at its key)

A source's own ``columns.<feed>`` wins over the preprocessing's ``columns`` (see ``source_columns``).
"""

from ..data.dates import WIDTH as DATE_WIDTH
from .sizes import AUTO


def implied_feeds(data):
    """{feed: (shape, dtype, lod_level)} of the feeds ``data`` (the validated run config) implies."""
    d = data["data"]
    out = {}
    for feed, spec in d["preprocessing"].items():
        kind = spec["kind"]
        if kind == "numeric":
            columns = spec.get("columns") or ((d["train"] or {}).get("columns") or {}).get(feed)
            out[feed] = ([len(columns) if isinstance(columns, list) else 1], "float32", 0)
        elif kind == "category" and spec.get("encoding") == "one_hot":
            out[feed] = ([AUTO], "float32", 0)
        elif kind in ("category", "label"):
            out[feed] = ([1], "int64", 0)
        elif kind == "text" and spec.get("sequence") == "padded":
            out[feed] = ([spec.get("max_length") or 64], "int64", 0)
            if spec.get("lengths_feed"):
                out[spec["lengths_feed"]] = ([1], "int64", 0)
        elif kind == "text":
            out[feed] = ([1], "int64", 1)
        elif kind == "date":
            out[feed] = ([DATE_WIDTH], "float32", 0)
        elif kind == "image" and (spec.get("crop") or spec.get("size")):
            out[feed] = ([1 if spec.get("mode") == "L" else 3] + list(spec.get("crop") or spec["size"]), "float32", 0)
        elif kind == "image":
            out[feed] = (None, "float32", 0)  # no height and width: the model file must declare it
    return out


def source_columns(data):
    """Each table source's ``columns`` with the preprocessing's ``columns`` where it names none."""
    d = data["data"]
    for which in ("train", "eval"):
        src = d[which]
        if src is None:
            continue
        for feed, spec in d["preprocessing"].items():
            if spec.get("columns") is not None:
                src["columns"].setdefault(feed, spec["columns"])


__all__ = ["implied_feeds", "source_columns"]
