"""``data.split``: one source (data.train) split into train / eval (/ test) rows, at random or
stratified by a feed's or column's values, and recorded in the run so that a resume and ``pe eval``
see the same rows.

The rows are data.train's after its start/stop/limit and after the rows whose label is missing are
dropped. Random: a permutation of the rows (numpy's default_rng(seed)), its first eval fraction the
eval part, the next test fraction the test part. Stratified: the same within each value's rows, each
part's share rounded, and a value with at least 2 rows gives each held-out part at least one
(while keeping one for training). Each
part keeps the file's order. ``<run dir>/split.json`` holds the settings, the data's size and SHA-256
and the eval and test row numbers (the train part is the rest); a later use of the run reads it and
refuses in one line a data file that changed under the run or a data.split that differs from it.
"""

import hashlib
import json
import os

import numpy as np

from ..base import json_once
from ..base.errors import PeError, UsageError
from ..base.limits import file_kind
from ..data.ragged import Ragged
from .build import source_columns
from .rundir import atomic_write, is_run_dir

FILE_NAME = "split.json"
VERSION = 1
SETTINGS = ("eval", "test", "seed", "stratify")
_STRATUM = "\0stratify"  # the pseudo feed a stratify column that is no feed is read through


def has_part(cfg, part):
    """True when the config gives rows for ``part`` (eval, test): a source or a data.split fraction."""
    d = cfg.data["data"]
    split = d["split"] or {}
    return bool(split.get(part)) or (part == "eval" and d["eval"] is not None)


def part_name(cfg, part):
    """How messages name the rows of ``part``: data.eval, or data.split's eval part."""
    split = cfg.data["data"]["split"] or {}
    return f"data.split's {part} part" if split.get(part) or (split and part == "train") else f"data.{part}"


class Split:
    """``rows`` {part: row numbers of data.train}; ``record`` what split.json holds."""

    def __init__(self, rows, record):
        self.rows, self.record = rows, record


def save_split(split, run_dir):
    """Writes ``split`` (a Split, or None: nothing) as ``run_dir``/split.json."""
    if split is not None:
        atomic_write(os.path.join(run_dir, FILE_NAME), json.dumps(split.record, indent=1) + "\n")


class Rows:
    """The raw columns (source_columns) of each part a run reads: with data.split, data.train read
    once and split (afresh, or as ``run_dir``'s split.json says: a run without one, or a config
    without data.split for a run with one, is refused); else data.train and data.eval."""

    def __init__(self, cfg, run_dir=None):
        self.cfg, self.split, self._whole = cfg, None, None
        settings = cfg.data["data"]["split"]
        recorded = os.path.join(run_dir, FILE_NAME) if run_dir else None
        if settings is None:
            if recorded and os.path.isfile(recorded):
                raise UsageError(
                    f"{run_dir} split data.train into parts ({recorded}); this config has no data.split, "
                    f"so it would read other rows: give the run's data.split"
                )
            return
        if recorded and not os.path.isfile(recorded) and is_run_dir(run_dir):
            raise UsageError(
                f"{run_dir} was trained without data.split (it has no {FILE_NAME}), so its data.train "
                f"rows were all trained on; drop data.split, or start a new run with it"
            )
        stratify = settings["stratify"]
        extra = stratify if stratify is not None and stratify not in cfg.model.feeds else None
        whole = source_columns(cfg, "train", extra and (_STRATUM, extra))
        values = whole.pop(_STRATUM, None) if extra else (whole[stratify] if stratify else None)
        source = cfg.data["data"]["train"]
        if recorded and os.path.isfile(recorded):
            self.split = _read(recorded, settings, source, len(next(iter(whole.values()))))
        else:
            self.split = _make(settings, source, whole, values)
        self._whole = whole

    def columns(self, part):
        """The raw columns of ``part`` (train, eval, test)."""
        if self.split is None or part not in self.split.rows:
            if part == "test" or self.cfg.data["data"].get(part) is None:
                raise PeError(
                    f"the config gives no {part} rows: data.split.{part} is not set"
                    + ("" if part == "test" else f" and there is no data.{part}")
                )
            return source_columns(self.cfg, part)
        rows = self.split.rows[part]
        return {f: v[rows] if isinstance(v, Ragged) else np.ascontiguousarray(v[rows]) for f, v in self._whole.items()}

    def describe(self, part):
        """How fitted_on names the rows of ``part``."""
        return part_name(self.cfg, part)


def _make(settings, source, whole, values):
    n = len(next(iter(whole.values())))
    rng = np.random.default_rng(settings["seed"])
    fractions = [settings["eval"] or 0.0, settings["test"] or 0.0]
    if values is None:
        held = _held_out(rng.permutation(n), fractions, False)
    else:
        keys = np.array([_key(v) for v in values], dtype=object)
        held = [[], []]
        for value in sorted(set(keys)):
            mine = np.flatnonzero(keys == value)
            for part, rows in zip(held, _held_out(mine[rng.permutation(len(mine))], fractions, True)):
                part.extend(rows)
    eval_rows, test_rows = (np.sort(np.asarray(h, dtype=np.int64)) for h in held)
    train = np.setdiff1d(np.arange(n), np.concatenate([eval_rows, test_rows]))
    for part, got in (("train", train), ("eval", eval_rows), ("test", test_rows)):
        if not len(got) and (part == "train" or settings[part]):
            raise PeError(
                f"data.split gives the {part} part none of the {n} rows of data.train; "
                + (
                    _few_per_value(settings["stratify"], keys)
                    if values is not None and part != "train"
                    else f"{'lower' if part == 'train' else 'raise'} data.split's fractions, or give more rows"
                )
            )
    rows = {"train": train, "eval": eval_rows, "test": test_rows}
    record = {
        "version": VERSION,
        **{k: settings[k] for k in SETTINGS},
        "source": _where(source),
        "rows": n,
        "sha256": _digest(source),
        "sizes": {p: len(r) for p, r in rows.items()},
        "eval_rows": eval_rows.tolist(),
        "test_rows": test_rows.tolist(),
    }
    return Split({p: r for p, r in rows.items() if p == "train" or settings[p]}, record)


def _few_per_value(stratify, keys):
    """Why a stratified split left a held-out part empty: too few rows of each value."""
    counts = sorted(np.unique(keys, return_counts=True)[1])
    return (
        f"data.split.stratify '{stratify}' has {len(counts)} values of at most {counts[-1]} rows each, and a "
        f"value's rows reach a held-out part only where it has 2 or more (3 for eval and test): stratify by a "
        f"column of classes (few values, many rows each), or drop data.split.stratify"
    )


def _held_out(order, fractions, stratified):
    """The eval and test rows: the first shares of ``order`` (at least one each where a stratum of
    2 or more rows would otherwise give a part none, while one row stays in train)."""
    n, counts = len(order), [int(round(len(order) * f)) for f in fractions]
    if stratified:
        counts = [max(c, 1) if f and n >= 2 else c for c, f in zip(counts, fractions)]
        counts[1] = min(counts[1], max(n - counts[0] - 1, 0))
        counts[0] = min(counts[0], max(n - 1, 0))
    return order[: counts[0]], order[counts[0] : counts[0] + counts[1]]


def _key(value):
    if value is None:
        return "<missing>"
    return str(value.tolist() if isinstance(value, np.ndarray) else value)


def most_bytes(n):
    """The most bytes the split record of ``n`` rows can hold as pe writes it (each row number once,
    with its indent and comma), checked before it is parsed: a 160 MB one was read whole (1.1 GB)."""
    return 4096 + n * (len(str(n)) + 8)


def _read(path, settings, source, n):
    kind = file_kind(path)
    if kind is not None:
        raise PeError(f"{path} is {kind}, not a split record; it is written by pe train")
    size, most = os.path.getsize(path), most_bytes(n)
    if size > most:
        raise PeError(
            f"{path} is {size:,} bytes, above the {most:,} a split of {n:,} rows takes; it is written by "
            f"pe train: restore it, or start a new run"
        )
    try:
        with open(path, encoding="utf-8") as f:
            record = json_once.load(f)
        listed = [record[f"{p}_rows"] for p in ("eval", "test")]
        if not all(isinstance(r, list) and all(type(i) is int for i in r) for r in listed):
            raise ValueError("the row numbers are not lists of whole numbers")
        rows = {p: np.asarray(r, dtype=np.int64) for p, r in zip(("eval", "test"), listed)}
    except (OSError, ValueError, KeyError, TypeError, OverflowError, RecursionError) as e:
        raise PeError(f"{path}: not a readable split record ({str(e)[:200]}); it is written by pe train") from None
    for key in SETTINGS:
        if record.get(key) != settings[key]:
            raise UsageError(
                f"data.split.{key} is {json.dumps(settings[key])} here and {json.dumps(record.get(key))} "
                f"in the run ({path}): a run keeps the rows it was split into; drop that change, or "
                f"start a new run"
            )
    digest = _digest(source)
    if record.get("rows") != n or record.get("sha256") != digest:
        raise PeError(
            f"{_where(source)} changed since the run split it ({path}: {record.get('rows')} rows, sha256 "
            f"{str(record.get('sha256'))[:12]}; now {n} rows, {digest[:12]}): its recorded rows would name "
            f"other samples; restore the file, or start a new run"
        )
    held = np.concatenate(list(rows.values()))
    if len(held) and (held.min() < 0 or held.max() >= n):
        raise PeError(f"{path}: a row number outside the {n} rows of data.train")
    rows["train"] = np.setdiff1d(np.arange(n), held)
    return Split({p: r for p, r in rows.items() if p == "train" or settings[p]}, record)


def _where(source):
    return source.get("path") or ", ".join(sorted(source.get("files", {}).values()))


def _digest(source):
    """SHA-256 of the source's file(s); a directory's: its files' names and sizes."""
    h = hashlib.sha256()
    paths = [source["path"]] if source.get("path") else [source["files"][k] for k in sorted(source["files"])]
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in sorted(os.walk(path)):
                dirs.sort()
                for name in sorted(files):
                    full = os.path.join(root, name)
                    h.update(f"{os.path.relpath(full, path)}\0{os.path.getsize(full)}\n".encode())
            continue
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()
