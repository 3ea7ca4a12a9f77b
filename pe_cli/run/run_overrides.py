"""The command-line overrides a run was started with, kept in its run directory so that ``--resume``
continues the same run (a kill -9 leaves no chance to print them):

    runs/mnist_mlp/overrides.json     ["epochs=300", "optimizer.learning_rate=0.05"]

The rule: a resume loads the config file it is given, applies the run's recorded overrides, then
those given to the resume (so a resume's ``epochs=400`` wins over the start's ``epochs=300``); the
record then holds both (a later resume continues with them). A run made before the record existed
has none: its resume applies only what it is given.
"""

import json
import os

from ..base.errors import PeError
from ..base.limits import file_kind
from ..config import ConfigError, load_config
from ..config.features import has_features
from ..config.overrides import is_feature_override
from ..config.yamlfile import load_yaml
from .record_file import load_record
from .rundir import atomic_write

OVERRIDES_FILE = "overrides.json"


def write_overrides(run_dir, overrides):
    atomic_write(os.path.join(run_dir, OVERRIDES_FILE), json.dumps(list(overrides), indent=1) + "\n")


def recorded_overrides(run_dir):
    """The overrides ``run_dir`` records (an empty list when it has no record)."""
    path = os.path.join(run_dir, OVERRIDES_FILE)
    if not os.path.lexists(path):
        return []
    record = load_record(
        path,
        lambda why: PeError(
            f'{path} {why}; write the run\'s overrides there as a JSON list of "key.path=value" strings, or [] for none'
        ),
        "json",
    )
    if not isinstance(record, list) or not all(isinstance(a, str) and "=" in a for a in record):
        raise PeError(
            f'{path}: not a JSON list of "key.path=value" strings; write the run\'s overrides that way, or [] for none'
        )
    return record


def merged(first, then):
    """``first`` then ``then``, leaving out an override that a later one of the same key replaces
    (it would be overwritten whole): the same config, and a record that does not grow at each resume."""
    args = list(first) + list(then)
    keys = [a.split("=", 1)[0].strip() for a in args]
    return [a for i, a in enumerate(args) if keys[i] not in keys[i + 1 :]]


def with_recorded_overrides(cfg, run_dir):
    """``cfg`` loaded again with ``run_dir``'s recorded overrides under its own (the rule above)."""
    recorded = kept = recorded_overrides(run_dir)
    if not _has_features(cfg):  # the run's record: its model.yaml holds the layers they made (kept recorded)
        recorded = [a for a in recorded if not is_feature_override(a)]
    if not kept:
        return cfg
    try:
        loaded = load_config(cfg.path, merged(recorded, cfg.overrides))
        loaded.overrides = tuple(merged(kept, cfg.overrides))
        return loaded
    except ConfigError as e:
        if not any(e.line().startswith(f"command line '{a[:80]}") for a in recorded):
            raise
        raise PeError(
            f"{e.line()} (an override {run_dir} was started with, recorded in "
            f"{os.path.join(run_dir, OVERRIDES_FILE)}); override it again on this command line, "
            f"or remove it from that file"
        ) from None


def _has_features(cfg):
    model = cfg.data.get("model")
    return isinstance(model, str) and file_kind(model) is None and has_features(load_yaml(model, "model file").data)
