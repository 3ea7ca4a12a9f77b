"""data.preprocessing at the run level: fitted on data.train (only) when a run starts, saved as
``<run dir>/preprocessing.json``, and read back, never re-fitted, by every later use of the run
(resume, pe eval, pe predict, pe export; pe_cli/data/preprocessing.py holds the kinds)."""

import os

from ..base.errors import PeError
from ..base.limits import file_kind
from ..data.preprocessing import FILE_NAME, Preprocessing
from ..config.features import binary_feeds, has_features
from ..config.overrides import apply_feature_overrides, split_model_overrides
from ..config.sizes import fill_sizes
from ..config.yamlfile import load_yaml
from ..data.readers import DataError
from ..data.vocabulary import UNKNOWN
from .build import source_columns
from .rundir import atomic_write


def fit_preprocessing(cfg, raw=None, part="data.train"):
    """The Preprocessing of data.preprocessing fitted on data.train's samples (after its
    start/stop/limit; ``raw``: its raw columns, or those of data.split's train ``part``), or None
    when the config has none."""
    specs = cfg.data["data"]["preprocessing"]
    if not specs:
        return None
    source = cfg.data["data"]["train"]
    raw = source_columns(cfg, "train") if raw is None else raw
    columns = {f: (source.get("columns") or {}).get(f, f) for f in specs}
    n = len(next(iter(raw.values())))
    fitted_on = f"data.train: {source.get('path')}" + ("" if part == "data.train" else f", {part}")
    try:
        fitted = Preprocessing.fit(
            specs,
            raw,
            columns,
            f"{fitted_on} ({n} samples)",
            source.get("path") or "data.train",
            cfg.data["data"]["missing"],
        )
    except DataError as e:
        raise cfg.doc.error(("data", "preprocessing") + e.key[:1], e.message, e.hint) from None
    _check_binary(cfg, fitted, fitted_on)
    return fitted


def _check_binary(cfg, fitted, fitted_on):
    """A model file's binary feature holds at most two values in the training data: one line at the
    feature naming the values, never a silent third class or a wider one-hot."""
    model = cfg.data.get("model")
    if not isinstance(model, str) or file_kind(model) is not None:
        return
    doc = load_yaml(model, "model file")
    apply_feature_overrides(doc, split_model_overrides(cfg.overrides)[1])
    if not has_features(doc.data):
        return
    for feed, at in binary_feeds(doc).items():
        state = fitted.feeds.get(feed) or {}
        groups = [state["classes"]] if state.get("kind") == "label" else state.get("vocabularies") or []
        for values in groups:
            values = [v for v in values if v != UNKNOWN]
            if len(values) > 2:
                shown = ", ".join(repr(str(v)[:20]) for v in values[:4]) + (", ..." if len(values) > 4 else "")
                raise doc.error(
                    at,
                    f"binary feature '{feed}' holds {len(values)} distinct values in {fitted_on} ({shown}); "
                    f"a binary feature holds two",
                    "make it kind: category (or fix the column)",
                )


def save_preprocessing(preprocessing, run_dir):
    if preprocessing is not None:
        atomic_write(os.path.join(run_dir, FILE_NAME), preprocessing.to_text())


def saved_preprocessing(cfg, run_dir):
    """The Preprocessing a run saved (None when it has none and the config asks for none)."""
    path = os.path.join(run_dir, FILE_NAME)
    if file_kind(path) != "missing":  # a FIFO or a device is refused by the reader, never skipped
        try:
            return Preprocessing.read(path)
        except DataError as e:
            raise PeError(e.message + (f"; {e.hint}" if e.hint else "")) from None
    if cfg is not None and cfg.data["data"]["preprocessing"]:
        raise PeError(
            f"{run_dir} has no {FILE_NAME}, which data.preprocessing needs: the run was trained "
            f"without it; train it with this config"
        )
    return None


def fill_data_sizes(cfg, preprocessing):
    """Fills the ``auto`` sizes of the config's model from the fitted ``preprocessing`` (or None) and
    checks the sizes written where the data decides them (config/sizes.py), before any build."""
    if preprocessing is None:
        fill_sizes(cfg.model, {})
    else:
        fill_sizes(cfg.model, preprocessing.id_counts(), preprocessing.one_hot_widths())
