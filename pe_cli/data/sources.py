"""Data sources: a run config's ``data.train`` / ``data.eval`` turned into one array per feed.

Formats (keys as in docs/CONFIG.md):
- ``mnist``: ``path`` is a directory holding the MNIST IDX files; columns ``image`` [N, 28, 28] and
  ``label`` [N]; ``split`` picks train (first 8,000), eval (last 2,000) or all of the bundled set.
- ``idx`` / ``npy``: ``files`` maps each feed to its own file.
- ``npz``: ``path`` is one archive; ``columns`` maps feeds to array names (default: the feed's name);
  an array ``NAME`` with a ``NAME_lengths`` beside it is ragged: one sequence per sample (ragged.py).
- ``csv``, ``tsv``, ``jsonl``: ``path`` is one table (tables.py), read by column name; ``columns``
  maps feeds to a column name (or, without a header, an index), or a list of them.
- ``folders``: ``path`` holds one folder of images per class; columns ``image`` (the files) and
  ``label`` (the folder's name), for data.preprocessing's image and label kinds.

Then ``start``/``stop`` slice the samples and ``limit`` keeps at most that many.
"""

import os

import numpy as np

from ..base.errors import PeError, suggest
from .idx import MNIST_FILES, MNIST_SPLITS, read_idx
from .multislot import MultiSlotReader
from .ragged import Ragged, npz_column
from .images import class_folders
from .missing import Missing, drop_missing_labels
from .readers import DataError, read_npy, read_npz, require_file
from .tables import TABLE_FORMATS, read_table
from .vocabulary import as_text

_MNIST_COLUMNS = {"image": "images", "label": "labels"}
PATH_FORMATS = ("mnist", "npz", "multislot", "folders") + TABLE_FORMATS  # the formats read from 'path'


def load_source(source, feeds, feed_specs=None, raw=None, missing=None):
    """``source``: a validated data-source mapping (paths resolved); ``feeds``: feed names
    (``feed_specs``: their specs, for the multislot format's slot types); ``raw``: feed -> kind of
    the feeds data.preprocessing turns from raw fields into arrays (preprocessing.py); ``missing``:
    a table's missing fields (missing.Missing). Returns {feed: array} with every array sliced to
    the same samples."""
    fmt = source["format"]
    columns = dict(source.get("columns") or {})
    files = dict(source.get("files") or {})
    for feed in columns:
        if feed not in feeds:
            raise DataError(
                f"'{feed}' is not a feed of the model", ("columns", feed), f"the feeds are {', '.join(feeds)}"
            )
    for feed in files:
        if feed not in feeds:
            raise DataError(
                f"'{feed}' is not a feed of the model", ("files", feed), f"the feeds are {', '.join(feeds)}"
            )
    if fmt in PATH_FORMATS and not source.get("path"):
        raise DataError(f"a {fmt} source needs 'path'", (), "add path: <file or directory>")
    if fmt in ("idx", "npy"):
        if not files:
            raise DataError(f"a {fmt} source needs 'files' (one file per feed)", (), "add files: {feed: path, ...}")
        missing = [f for f in feeds if f not in files]
        if missing:
            raise DataError(f"no file for feed '{missing[0]}'", ("files",), f"add files.{missing[0]}: <path>")
        reader = read_idx if fmt == "idx" else read_npy
        out = {}
        for feed in feeds:
            try:
                out[feed] = reader(require_file(files[feed], ("files", feed)))
            except DataError:
                raise
            except Exception as e:  # read_idx raises PeError with the file name
                raise DataError(str(e), ("files", feed)) from None
    elif fmt == "mnist":
        out = _mnist(source, feeds, columns)
    elif fmt == "npz":
        arrays = read_npz(source["path"])
        out = {}
        for feed in feeds:
            name = columns.get(feed, feed)
            if name not in arrays:
                key = ("columns", feed) if feed in columns else ("columns",)
                raise DataError(
                    f"{source['path']} has no array '{name}' for feed '{feed}'",
                    key,
                    suggest(name, arrays) + f" (add columns.{feed}: <array name>)",
                )
            out[feed] = npz_column(arrays, name)
    elif fmt in TABLE_FORMATS:
        out = table_columns(source, feeds, columns, raw or {}, missing)
    elif fmt == "folders":
        out = _folders(source, feeds, columns)
    elif fmt == "multislot":
        out = _multislot(source, feeds, feed_specs)
    else:
        raise DataError(f"unknown format '{fmt}'", ("format",))
    return _slice(source, out)


def _mnist(source, feeds, columns):
    directory = source["path"]
    if not os.path.isdir(directory):
        raise DataError(
            f"mnist data directory {directory} does not exist",
            ("path",),
            "point path at the directory holding the MNIST IDX files",
        )
    out = {}
    cache = {}
    for feed in feeds:
        column = _image_or_label("mnist", feed, columns)
        if column not in cache:
            path = os.path.join(directory, MNIST_FILES[_MNIST_COLUMNS[column]])
            require_file(path, ("path",))
            try:
                cache[column] = read_idx(path)
            except Exception as e:
                raise DataError(str(e), ("path",)) from None
        out[feed] = cache[column]
    start, stop = MNIST_SPLITS[source.get("split") or "all"]
    return {k: v[start:stop] for k, v in out.items()}


def _multislot(source, feeds, feed_specs):
    """MultiSlot text (seed 004's AsyncExecutor format, data/multislot.py): ``path`` is a file or a
    directory of them (read in name order). The slots of a line are the model's feeds in the order
    they are declared: an integer feed is an id slot (uint64), a float one a float slot; a feed with
    ``lod_level: 1`` is sparse (a sequence per sample), the others dense."""
    path = source["path"]
    if os.path.isdir(path):
        files = sorted(
            os.path.join(path, f)
            for f in os.listdir(path)
            if os.path.isfile(os.path.join(path, f)) and not f.endswith(".proto") and not f.startswith(".")
        )
    else:
        files = [require_file(path, ("path",))]
    if not files:
        raise DataError(f"{path} holds no MultiSlot files", ("path",), "point path at a file or a directory of them")
    slots = [
        (f, "uint64" if "int" in str(feed_specs[f].dtype) else "float", not feed_specs[f].lod_level, True)
        for f in feeds
    ]
    reader = MultiSlotReader(_Slots(slots, path))
    parts = {f: [] for f in feeds}
    for file in files:
        try:
            columns, counts = reader.parse_file(file)
        except PeError as e:
            raise DataError(str(e), ("path",)) from None
        for s, f in enumerate(feeds):
            parts[f].append((columns[f], counts[:, s]))
    if not sum(len(c) for c, _ in parts[feeds[0]]):
        raise DataError(
            f"{path} holds no samples (no non-blank line)",
            ("path",),
            "give MultiSlot text: a line per sample, each slot a count then its values",
        )
    out = {}
    for (
        f,
        dense,
    ) in ((f, slots[i][2]) for i, f in enumerate(feeds)):
        values = np.concatenate([v for v, _ in parts[f]])
        lengths = np.concatenate([c for _, c in parts[f]])
        if dense:
            if lengths.min() != lengths.max():
                raise DataError(
                    f"{path}: feed '{f}' has {lengths.min()} to {lengths.max()} values per line; a "
                    f"feed with lod_level 0 is a dense slot (the same count on every line)",
                    ("path",),
                    f"give feeds.{f} lod_level: 1 to read it as a sequence",
                )
            out[f] = values.reshape(len(lengths), int(lengths[0]))
        else:
            out[f] = Ragged(values.reshape(-1, 1), lengths, f)
    return out


class _Slots:
    """The slot description MultiSlotReader takes, from the model's feeds."""

    def __init__(self, slots, where):
        self.slots, self.batch_size, self.proto_file = slots, 1, where


def table_columns(source, feeds, columns, raw, missing=None):
    """csv, tsv, jsonl: each feed's column(s) by name (or, in a CSV without a header, by index).
    A feed without preprocessing gets numbers; a preprocessed one (``raw``: feed -> kind) its fields
    as written (numbers with NaN where missing for numeric, None where missing for the others;
    paths beside the table for image). A row whose label feed is missing is dropped or refused
    (missing.py)."""
    table = read_table(source["path"], source["format"], source.get("delimiter"), source.get("header", True))
    return columns_of(table, feeds, columns, raw, missing)


def columns_of(table, feeds, columns, raw, missing=None):
    """table_columns' feeds from a Table read already (a file's, or pe serve's request rows). A feed
    without preprocessing whose fields are lists (JSON rows) gets them as an array, or as sequences
    (a Ragged) where their lengths differ."""
    missing = missing or Missing()
    out, labels = {}, {}
    for feed in feeds:
        wanted = columns.get(feed, feed)
        key = ("columns", feed) if feed in columns else ("columns",)
        single = not isinstance(wanted, list)
        names = [wanted] if single else wanted
        try:
            kind = raw.get(feed)
            markers = missing.markers(feed)
            if kind == "label" or feed in missing.labels:
                labels[feed] = ", ".join(f"'{n}'" for n in names)
            if kind is None and len(names) == 1 and table.holds_lists(names[0], key):
                out[feed] = table.arrays(names[0], key, feed)
            elif kind in (None, "numeric"):
                allowed = kind == "numeric" or feed in missing.labels  # a missing label drops its row
                values = table.numbers(names, key, allow_missing=allowed, missing=markers)
                out[feed] = values[:, 0] if single else values
            else:
                if not single and kind != "category":  # a one-hot category reads a list side by side
                    raise DataError(f"a {kind} feed reads one column, got {len(names)}", key)
                fields = [table.raw(name, key, markers) for name in names]
                out[feed] = fields[0] if single else np.stack(fields, axis=1)
                if kind == "image":
                    out[feed] = _image_paths(table, names[0], out[feed], key)
        except DataError as e:
            raise DataError(
                f"{e.message} for feed '{feed}'" if "has no column" in e.message else e.message, e.key, e.hint
            ) from None
    return drop_missing_labels(out, labels, table, missing.on_label) if labels else out


def _image_paths(table, column, fields, key):
    """An image column's files, beside the table; a missing one is refused (an image cannot be filled)."""
    lost = [r for r, p in enumerate(fields) if p is None]
    if lost:
        raise DataError(
            f"{table.path}:{table.first + lost[0]}: the image of column '{column}' is missing "
            f"({len(lost)} of {len(fields)} rows)",
            key,
            "give every row an image file, or remove those rows (pe fills no missing image)",
        )
    base = os.path.dirname(table.path)
    return np.array([os.path.join(base, as_text(p)) for p in fields], dtype=object)


def _folders(source, feeds, columns):
    """An image folder of class folders: column ``image`` the files, ``label`` their folder's name."""
    paths, names = class_folders(source["path"])
    cols = {"image": np.array(paths, dtype=object), "label": np.array(names, dtype=object)}
    return {feed: cols[_image_or_label("folders", feed, columns)] for feed in feeds}


def _image_or_label(fmt, feed, columns):
    """The column (image or label) of an mnist or folders source that ``feed`` reads."""
    column = columns.get(feed, feed)
    if column not in ("image", "label"):
        key = ("columns", feed) if feed in columns else ("columns",)
        raise DataError(
            f"feed '{feed}' has no {fmt} column '{column}'",
            key,
            f"map it: columns: {{{feed}: image}} or {{{feed}: label}}",
        )
    return column


def _slice(source, arrays):
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k}: {n}" for k, n in lengths.items())
        raise DataError(
            f"the feeds have different numbers of samples ({detail})", (), "every feed needs one entry per sample"
        )
    n = next(iter(lengths.values()), 0)
    start = source.get("start") or 0
    stop = source.get("stop")
    stop = n if stop is None else min(stop, n)
    if start >= stop:
        raise DataError(
            f"start={start}, stop={stop} leaves no samples (the source has {n})",
            ("start",),
            f"use a start below {stop}",
        )
    limit = source.get("limit")
    if limit is not None:
        stop = min(stop, start + limit)
    return {
        k: v[start:stop] if isinstance(v, Ragged) else np.ascontiguousarray(v[start:stop]) for k, v in arrays.items()
    }
