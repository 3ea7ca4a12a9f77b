"""How preprocessing.py fits and applies its numeric, category, text and label kinds (the docstring there says
what each does): a ``_fit_<kind>(spec, raw, where)`` that returns the state saved in preprocessing.json,
and an ``_apply_<kind>(state, raw, where)`` that turns a column into a feed's array with it."""

import numpy as np

from ..base.limits import LIMITS, limit
from .missing import EMPTY_HINT, category_fill, check_numbers, check_values
from .one_hot import apply_one_hot, fit_one_hot, one_column
from .ragged import Ragged
from .readers import DataError
from .vocabulary import (
    PAD,
    UNKNOWN,
    as_text,
    build_vocabulary,
    class_ids,
    lookup,
    tokenizer,
    vocabulary_index,
)


# -- numeric ------------------------------------------------------------------------------------

_F32_MAX = float(np.finfo(np.float32).max)


def _numbers(raw, where):
    x = np.asarray(raw, dtype=np.float64)
    x = x.reshape(len(x), -1)
    big = np.abs(np.where(np.isnan(x), 0.0, x)) > _F32_MAX
    if big.any():
        r, c = (int(i[0]) for i in np.nonzero(big))
        raise DataError(
            f"{where}: sample {r} holds {x[r, c]:g}, beyond float32's range (±3.4e38), which the feed computes in",
            (),
            "scale the column down, or mark the value missing (data.missing)",
        )
    return x


def fit_numeric(spec, raw, where):
    x = _numbers(raw, where.source)
    check_numbers(x, spec["scaling"], where)
    fill = spec["fill"]
    if fill == "mean":
        fills = [float(np.nanmean(c)) if np.isfinite(c).any() else 0.0 for c in x.T]
    elif fill == "median":
        fills = [float(np.nanmedian(c)) if np.isfinite(c).any() else 0.0 for c in x.T]
    else:
        fills = [0.0 if fill == "zero" else float(fill)] * x.shape[1]
    state = {
        "scaling": spec["scaling"],
        "fill": fill,
        "fill_value": fills,
        "shift": [0.0] * x.shape[1],
        "divide": [1.0] * x.shape[1],
    }
    y = _scaled(state, x.astype(np.float32), "the training data")
    if spec["scaling"] in ("standardize", "zscore"):  # zscore: the sample std (n - 1), as Ludwig's
        ddof = 1 if spec["scaling"] == "zscore" and len(y) > 1 else 0
        std = y.std(axis=0, dtype=np.float64, ddof=ddof)
        state.update(shift=y.mean(axis=0, dtype=np.float64).tolist(), divide=np.where(std > 0, std, 1.0).tolist())
    elif spec["scaling"] == "minmax":
        lo, hi = y.min(axis=0).astype(np.float64), y.max(axis=0).astype(np.float64)
        state.update(shift=lo.tolist(), divide=np.where(hi > lo, hi - lo, 1.0).tolist())
    return state


def _scaled(state, x, where):
    """Missing values filled, then ln(1 + x) for scaling: log (float32, as the ONNX graph does)."""
    x = np.where(np.isnan(x), np.asarray(state["fill_value"], dtype=np.float32), x).astype(np.float32)
    if state["scaling"] == "log":
        if (x <= -1).any():
            raise DataError(
                f"{where}: scaling: log takes values above -1, got {float(x.min())}",
                ("scaling",),
                "use scaling: standardize or minmax for this feed",
            )
        x = np.log(x + np.float32(1))
    return x


def apply_numeric(state, raw, where):
    x = _numbers(raw, where)
    if x.shape[1] != len(state["shift"]):
        raise DataError(f"{where}: {x.shape[1]} value(s) per sample, fitted on {len(state['shift'])}", ())
    y = _scaled(state, x.astype(np.float32), where)
    return (y - np.asarray(state["shift"], dtype=np.float32)) / np.asarray(state["divide"], dtype=np.float32)


# -- category, label, text ----------------------------------------------------------------------


def _strings(raw):
    """The fields as stripped text; a missing one (None) stays None."""
    return [None if v is None else as_text(v).strip() for v in np.asarray(raw, dtype=object).reshape(-1)]


def _bounded(values, name, key, hint):
    """``values`` (a fitted vocabulary or class list) within pe's limit ``name``, else a DataError."""
    most = limit(name)
    if len(values) > most:
        raise DataError(
            f"the training data gives {len(values):,} {key}, above pe's limit of {most:,} "
            f"({LIMITS[name].env} raises it)",
            (key,),
            hint,
        )
    return values


def _filled(values, fill):
    """A category's values with the missing ones as its ``fill`` value (None: the unknown id)."""
    fill = category_fill(fill)
    return values if fill is None else [fill if v is None else v for v in values]


def fit_category(spec, raw, where):
    if spec["encoding"] == "one_hot":
        return fit_one_hot(spec, raw, where, fit_category)
    values = _strings(one_column(raw))
    check_values(values, where)
    items = [v for v in _filled(values, spec["fill"]) if v is not None]
    vocab = build_vocabulary(items, [UNKNOWN], spec["min_count"], spec["max_vocabulary"])
    return {
        "min_count": spec["min_count"],
        "fill": spec["fill"],
        "vocabulary": _bounded(vocab, "vocabulary", "max_vocabulary", "set max_vocabulary or min_count"),
    }


def apply_category(state, raw, where):
    if state.get("encoding") == "one_hot":
        return apply_one_hot(state, raw, where, apply_category)
    return lookup(
        vocabulary_index(state["vocabulary"]), _filled(_strings(one_column(raw)), state.get("fill")), unknown=0
    )


def _class_key(name):
    try:
        return (0, float(name), name)
    except ValueError:
        return (1, 0.0, name)


def fit_label(spec, raw, where):
    classes = sorted({v for v in _strings(raw) if v is not None}, key=_class_key)
    if not classes:
        raise DataError(f"{where.column()} is missing in every row", (), "give the label column values")
    if len(classes) == 1:  # a classifier of one class learns nothing and scores 100 %
        raise DataError(
            f"{where.column()} holds one class ({str(classes[0])[:40]!r}) in every row, so there is "
            f"nothing to classify",
            (),
            "give rows of at least two classes (is it the right column?)",
        )
    return {"classes": _bounded(classes, "classes", "classes", "is the label column the right one?")}


def apply_label(state, raw, where):
    return class_ids(state["classes"], [as_text(v) for v in _strings(raw)], where)


def _tokens(state, raw):
    split = tokenizer(state["tokenizer"], state["pattern"], state["lowercase"])
    return [split(as_text(v))[: state["max_length"]] for v in np.asarray(raw, dtype=object).reshape(-1)]


def fit_text(spec, raw, where):
    state = {k: spec[k] for k in ("tokenizer", "pattern", "lowercase", "max_length", "sequence", "lengths_feed")}
    items = [t for tokens in _tokens(state, raw) for t in tokens]
    if not items:
        raise DataError(f"{where.column()} has no text in any row (empty or missing)", (), EMPTY_HINT)
    vocab = build_vocabulary(items, [PAD, UNKNOWN], spec["min_count"], spec["max_vocabulary"])
    return {
        **state,
        "min_count": spec["min_count"],
        "vocabulary": _bounded(vocab, "vocabulary", "max_vocabulary", "set max_vocabulary or min_count"),
    }


def apply_text(state, raw, where):
    """A Ragged of ids [rows, 1] (an empty text is one <pad>), or (ids [N, max_length], lengths [N])."""
    index = vocabulary_index(state["vocabulary"])
    seqs = [lookup(index, tokens) if tokens else np.zeros(1, np.int64) for tokens in _tokens(state, raw)]
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    if state["sequence"] == "ragged":
        values = np.concatenate(seqs) if seqs else np.zeros(0, np.int64)
        return Ragged(values.reshape(-1, 1), lengths, "text")
    ids = np.zeros((len(seqs), state["max_length"]), dtype=np.int64)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = s
    return ids, lengths
