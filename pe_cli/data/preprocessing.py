"""Declarative feature preprocessing (the run config's ``data.preprocessing``): per feed, a kind
whose parameters are fitted on the TRAINING split only, saved in the run directory as
``preprocessing.json`` (versioned, human-readable) and applied, never re-fitted, by ``pe eval``,
``pe predict``, ``pe infer`` and ``pe export``.

    numeric   y = (f(x) - shift) / divide per column; missing values (missing.py) get
              ``fill`` first; f is ln(1 + x) for scaling: log. standardize: shift = mean,
              divide = std (zscore: the sample std, over n - 1, as Ludwig's); minmax: shift = min,
              divide = max - min; log, none: 0 and 1. A
              column of one value (std or max - min 0) is divided by 1, with a warning.
    category  one id per value: 0 is <unknown> (values seen fewer than min_count times, or never,
              and a missing value unless ``fill`` names the value it stands for), then the
              vocabulary, most frequent first. encoding: one_hot: each of its columns (one, or a
              list side by side) its own vocabulary, the ids as one-hot rows -> float32 [N, the
              vocabulary sizes summed] (one_hot.py).
    text      (a missing field is empty text) tokens (words and punctuation marks, whitespace-separated, characters, or a safe regex's
              matches (patterns.py); lowercased unless told) -> ids
              (0 <pad>, 1 <unknown>, then the vocabulary), at most max_length per sample; a ragged
              sequence (a lod_level 1 feed) or padded [N, max_length] with the lengths in
              another feed (``lengths_feed``).
    image     the column holds image files (relative to the table's folder), decoded by Pillow:
              resize, centre crop, scale, per-channel mean/std -> float32 [N, C, H, W] (images.py);
              a missing file name is refused.
    label     class names <-> ids (the names sorted; numbers in numeric order); pe predict writes
              the names. A row whose label is missing is dropped (missing.py).
    date      ISO dates or datetimes (or a strftime ``format``; a zone converted to UTC) -> year
              (none with ``year: false``), month, day, weekday, hour and cyclic parts (dates.py).

A training column that is missing in every row is refused naming the column and the file.
"""

import json

import numpy as np

from ..base.limits import LIMITS, limit
from .dates import apply_date, check_format, fit_date
from .images import MODES, load_images
from .missing import MISSING, Missing, Where
from .one_hot import COLUMNS_HINT, many_columns, width
from .preprocessing_file import ENCODINGS, FILLS, SCALINGS, SEQUENCES, fitted_problem, read_preprocessing_file
from .unscaling import unscaling
from .readers import DataError
from .vocabulary import TOKENIZERS, as_text, tokenizer
from .preprocessing_kinds import (
    apply_category,
    apply_label,
    apply_numeric,
    apply_text,
    fit_category,
    fit_label,
    fit_numeric,
    fit_text,
)

FILE_NAME = "preprocessing.json"
VERSION = 1
KINDS = ("numeric", "category", "text", "image", "label", "date")
KIND_KEYS = {
    "numeric": ("scaling", "fill", "missing"),
    "category": ("min_count", "max_vocabulary", "fill", "missing", "encoding"),
    "text": (
        "tokenizer",
        "pattern",
        "lowercase",
        "min_count",
        "max_vocabulary",
        "max_length",
        "sequence",
        "lengths_feed",
        "missing",
    ),
    "image": ("size", "crop", "mode", "scale", "mean", "std", "missing"),
    "label": ("missing",),
    "date": ("missing", "format", "year"),
}
DEFAULTS = {
    "scaling": "standardize",
    "fill": "mean",
    "min_count": 1,
    "tokenizer": "space_punct",
    "lowercase": True,
    "max_length": 64,
    "sequence": "ragged",
    "mode": "RGB",
    "scale": 1 / 255,
    "encoding": "ids",
}


def with_defaults(spec):
    """A config entry (schema-validated: unset keys are None) with its kind's defaults filled in."""
    kind = spec["kind"]
    filled = {k: spec.get(k) if spec.get(k) is not None else _default(kind, k) for k in KIND_KEYS[kind]}
    return {"kind": kind, "columns": spec.get("columns"), **filled}


def _default(kind, key):
    return None if (kind, key) == ("category", "fill") else DEFAULTS.get(key)


def check_preprocessing(specs, feeds):
    """Checks ``data.preprocessing`` against the model's feeds; raises DataError whose key is
    relative to data.preprocessing."""
    lengths = {}
    for feed, spec in specs.items():
        if feed not in feeds:
            raise DataError(f"'{feed}' is not a feed of the model", (feed,), f"the feeds are {', '.join(feeds)}")
        kind = spec["kind"]
        if isinstance(spec.get("columns"), list) and (not many_columns(spec) or not spec["columns"]):
            raise DataError(
                f"a list of columns is a numeric feed's or a one-hot category's; a {kind} feed reads one column",
                (feed, "columns"),
                COLUMNS_HINT.get(kind, "e.g. columns: island"),
            )
        for key, value in spec.items():
            if key not in ("kind", "columns") and value is not None and key not in KIND_KEYS[kind]:
                raise DataError(
                    f"'{key}' does not apply to a {kind} feed",
                    (feed, key),
                    f"a {kind} feed takes {', '.join(KIND_KEYS[kind]) or 'no other keys'}",
                )
        _check_kind(feed, with_defaults(spec), feeds)
        if spec.get("lengths_feed"):
            lengths[spec["lengths_feed"]] = feed
    for lf, feed in lengths.items():
        if lf in specs:
            raise DataError(f"'{lf}' is the lengths feed of '{feed}'; it takes no preprocessing of its own", (lf,))


def _check_kind(feed, spec, feeds):
    kind = spec["kind"]
    fill = spec.get("fill")
    if kind == "numeric" and isinstance(fill, str) and fill not in FILLS:
        raise DataError(f"fill '{fill}' is neither a number nor one of {', '.join(FILLS)}", (feed, "fill"))
    if kind == "text":
        if (spec["tokenizer"] == "regex") != (spec["pattern"] is not None):
            raise DataError(
                "pattern goes with tokenizer: regex (and regex needs a pattern)",
                (feed, "pattern"),
                "e.g. tokenizer: regex, pattern: '[a-z]+'",
            )
        if spec["pattern"] is not None:
            try:
                tokenizer("regex", spec["pattern"])
            except DataError as e:
                raise DataError(e.message, (feed,) + e.key) from None
        if spec["max_length"] > limit("text_length"):
            raise DataError(
                f"max_length {spec['max_length']:,} is above pe's limit of {limit('text_length'):,} "
                f"tokens per sample ({LIMITS['text_length'].env} raises it)",
                (feed, "max_length"),
            )
        lf = spec["lengths_feed"]
        if (spec["sequence"] == "padded") != (lf is not None):
            raise DataError(
                "sequence: padded takes lengths_feed (the feed that gets each sample's length), "
                "and lengths_feed needs sequence: padded",
                (feed, "lengths_feed"),
            )
        if lf is not None and lf not in feeds:
            raise DataError(
                f"lengths_feed '{lf}' is not a feed of the model",
                (feed, "lengths_feed"),
                f"the feeds are {', '.join(feeds)}",
            )
    for key in ("size", "crop"):
        value = spec.get(key)
        if value is not None and (len(value) != 2 or min(value) < 1):
            raise DataError(f"{key} is [height, width], got {value}", (feed, key), f"e.g. {key}: [28, 28]")
    if kind == "date" and spec["format"] is not None:
        check_format(spec["format"], (feed, "format"))
    if kind == "image" and spec["mode"] not in MODES:
        raise DataError(f"mode '{spec['mode']}' is not one of {', '.join(MODES)}", (feed, "mode"))


def lengths_feeds(specs):
    """The feeds a padded text feed fills with its lengths (they read no column)."""
    return {s["lengths_feed"] for s in specs.values() if s.get("lengths_feed")}


class Preprocessing:
    """Fitted preprocessing: ``feeds`` maps each preprocessed feed to its saved state."""

    def __init__(self, feeds, fitted_on="", target=None):
        self.feeds, self.fitted_on = feeds, fitted_on
        # {"feed", "output"}: the output that predicts a numeric feed (an export's copy); a list of them
        # for a model with several
        self.target = target

    def with_target(self, feed, output):
        """A copy that names ``output`` (a variable) as the prediction of the numeric feed ``feed``:
        ``pe infer`` writes it in that feed's units."""
        return self.with_targets([(feed, output)])

    def with_targets(self, pairs):
        """A copy that names each (numeric feed, output variable) of ``pairs`` as with_target (one:
        a mapping, as pe has always written it; several: a list of them)."""
        targets = [{"feed": feed, "output": output} for feed, output in pairs]
        return Preprocessing(self.feeds, self.fitted_on, targets[0] if len(targets) == 1 else targets or None)

    def target_unscaling(self):
        """{output variable: its unscaling steps} of ``target`` ({} without one)."""
        targets = [self.target] if isinstance(self.target, dict) else self.target or []
        steps = {t["output"]: unscaling(self.feeds[t["feed"]], []) for t in targets}
        return {output: s for output, s in steps.items() if s}

    @classmethod
    def fit(cls, specs, raw, columns, fitted_on, source="the training data", missing=MISSING):
        """Fits every entry of ``specs`` on the training split's raw columns ``raw`` {feed: array};
        ``columns`` {feed: the table column(s) it was read from} is saved for pe predict and infer,
        with each feed's missing markers (its own, else ``missing``: data.missing). ``source``
        names the training file in errors and warnings."""
        feeds = {}
        for feed, spec in specs.items():
            spec = with_defaults(spec)
            column = columns.get(feed, feed)
            where = Where(source, column if isinstance(column, list) else [column])
            try:
                with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below, in one line
                    state = _FIT[spec["kind"]](spec, raw[feed], where)
            except DataError as e:
                raise DataError(e.message, (feed,) + e.key, e.hint) from None
            markers = list(spec["missing"] if spec["missing"] is not None else missing)
            feeds[feed] = {"kind": spec["kind"], "column": column, **state, "missing": markers}
        problem = fitted_problem(feeds, VERSION, KINDS)  # what pe could not read back is not saved
        if problem is not None:
            raise DataError(
                f"the fitted {problem[1]}",
                (problem[0],) if problem[0] else (),
                "does the training column hold infinite or huge values?",
            )
        return cls(feeds, fitted_on)

    def kinds(self):
        return {f: s["kind"] for f, s in self.feeds.items()}

    def columns(self):
        return {f: s["column"] for f, s in self.feeds.items()}

    def missing(self, default=MISSING):
        """The missing fields of the data this preprocessing reads: each feed's saved markers, else
        ``default`` (data.missing)."""
        return Missing(tuple(default), {f: s["missing"] for f, s in self.feeds.items() if s.get("missing") is not None})

    def apply(self, raw, where):
        """{feed: array or Ragged} of the preprocessed feeds in ``raw`` (and their lengths feeds)."""
        out = {}
        for feed, state in self.feeds.items():
            if feed not in raw:
                continue
            try:
                value = _APPLY[state["kind"]](state, raw[feed], where)
            except DataError as e:
                raise DataError(f"{e.message} (preprocessing of '{feed}')", e.key, e.hint) from None
            if state.get("lengths_feed"):
                value, out[state["lengths_feed"]] = value
            out[feed] = value
        return out

    def class_names(self, feed):
        """The names of a class feed's ids: a label's classes, a category's vocabulary (id 0 its
        unknown); None for another feed."""
        state = self.feeds.get(feed) or {}
        return {"label": state.get("classes"), "category": state.get("vocabulary")}.get(state.get("kind"))

    def id_counts(self):
        """{feed: (kind, ids)} of the feeds whose values are ids: a category's or a text's vocabulary
        size (its reserved ids included), a label's number of classes (pe_cli/config/sizes.py)."""
        counts = {}
        for feed, state in self.feeds.items():
            values = state.get("classes") if state["kind"] == "label" else state.get("vocabulary")
            if state["kind"] in ("category", "text", "label") and isinstance(values, list):
                counts[feed] = (state["kind"], len(values))
        return counts

    def one_hot_widths(self):
        """{feed: values per sample} of the one-hot category feeds (config/sizes.py: fill_feed_widths)."""
        return {
            f: width(s) for f, s in self.feeds.items() if s["kind"] == "category" and s.get("encoding") == "one_hot"
        }

    def to_text(self):
        data = {"version": VERSION, "fitted_on": self.fitted_on, "feeds": self.feeds}
        return json.dumps({**data, "target": self.target} if self.target else data, indent=1) + "\n"

    @classmethod
    def read(cls, path):
        """The preprocessing saved in ``path``, every value checked (preprocessing_file.py)."""
        data = read_preprocessing_file(path, VERSION, KINDS)
        return cls(data["feeds"], data.get("fitted_on", ""), data.get("target"))


# -- image (numeric, category, label and text: preprocessing_kinds.py) ------------------------------


def _fit_image(spec, raw, where):
    return {k: spec[k] for k in KIND_KEYS["image"]}


def _apply_image(state, raw, where):
    paths = [as_text(v) for v in np.asarray(raw, dtype=object).reshape(-1)]
    return load_images(paths, state["size"], state["crop"], state["mode"], state["scale"], state["mean"], state["std"])


_FIT = {
    "numeric": fit_numeric,
    "category": fit_category,
    "text": fit_text,
    "image": _fit_image,
    "label": fit_label,
    "date": fit_date,
}
_APPLY = {
    "numeric": apply_numeric,
    "category": apply_category,
    "text": apply_text,
    "image": _apply_image,
    "label": apply_label,
    "date": apply_date,
}

__all__ = [
    "ENCODINGS",
    "FILE_NAME",
    "KINDS",
    "MODES",
    "SCALINGS",
    "SEQUENCES",
    "TOKENIZERS",
    "Preprocessing",
    "check_preprocessing",
    "lengths_feeds",
]
