"""The run is the truth: a checkpoint inside a run directory holds the model its run trained, so
``pe eval``, ``pe predict`` and ``pe export`` check CONFIG against the run's records before loading it.

The record in force at a checkpoint of step S is ``config.resumed-step-M.yaml`` for the largest M < S
(a resume from step M wrote it, and ``model.resumed-step-M.yaml`` when it changed the model), else
``config.yaml``; its ``model:`` names the model file that ran. A CONFIG whose model (layers, feeds,
loss) or ``data.preprocessing`` differs from the record is refused in one line naming the first
differing key and both values, before anything is built or written; a run without records (a
checkpoint copied out of its run) is taken as CONFIG says. A record that is there but cannot be read
(not a regular file, over 1 MiB, not YAML, a Python tag, not a mapping) refuses the command naming
it: no check is skipped because its input is damaged.
"""

import json
import os
import re

from ..base.errors import UsageError
from ..config.sizes import AUTO
from .checkpoint_check import checked_checkpoint
from .record_file import load_record
from .resume_state import effective_preprocessing, first_difference, shown
from .rundir import read_state

_RESUMED = re.compile(r"config\.resumed-step-(\d+)\.yaml$")


def config_record(run_dir, step):
    """The run's config record in force at ``step`` (see the module docstring), or None."""
    try:
        names = os.listdir(run_dir)
    except OSError:
        return None
    resumes = [(int(m.group(1)), n) for n in names for m in [_RESUMED.match(n)] if m and int(m.group(1)) < step]
    if resumes:
        return os.path.join(run_dir, max(resumes)[1])
    path = os.path.join(run_dir, "config.yaml")
    return path if os.path.lexists(path) else None


def run_checkpoint(cfg, checkpoint, command):
    """The checkpoint ``checkpoint`` names (``best`` where its run kept one) and its run directory,
    once checked (run/checkpoint_check.py) and CONFIG found to agree with the run's records."""
    ckpt, run_dir = checked_checkpoint(checkpoint, prefer_best=True)
    check_record(cfg, ckpt, run_dir, command, f"pe {command} {{record}} --checkpoint {ckpt} ...")
    return ckpt, run_dir


def check_record(cfg, ckpt, run_dir, command, usage):
    """Refuses (one line) a CONFIG whose model or preprocessing differs from the records of the run
    ``run_dir`` in force at the checkpoint ``ckpt``; ``usage`` (with ``{record}``) says how to give
    the run's record instead."""
    step = read_state(ckpt).get("step") or 0
    record = config_record(run_dir, step)
    if record is None:
        return
    recorded = read_record(record, command, ckpt)
    model_file = recorded.get("model") or "model.yaml"
    if not isinstance(model_file, str) or os.path.basename(model_file) != model_file:
        raise UsageError(
            f"pe {command}: {record}: 'model' is {shown(model_file)}, not a file of the run; the run's "
            f"records are damaged, so {ckpt} cannot be checked against CONFIG"
        )
    model = read_record(os.path.join(run_dir, model_file), command, ckpt)
    now = _widths_as_recorded(json.loads(json.dumps(cfg.model.to_data())), model)
    found = first_difference(_comparable(model), _comparable(now), ("model",))
    if found is None:
        was = (recorded.get("data") or {}).get("preprocessing")
        now = json.loads(json.dumps(cfg.data["data"]["preprocessing"]))
        found = first_difference(effective_preprocessing(was), effective_preprocessing(now), ("data", "preprocessing"))
    if found is not None:
        key, was, now = found
        raise UsageError(
            f"pe {command}: {ckpt} (step {step}) was trained with {'.'.join(key)} {shown(was)} "
            f"({record}), CONFIG gives {shown(now)}: the checkpoint is that run's; drop the "
            f"difference, or give the run's record as CONFIG: {usage.format(record=record)}"
        )


def read_record(path, command, ckpt):
    """The mapping the run record ``path`` holds; a record pe cannot read, parse or trust refuses the
    command in one line naming it (fail closed: the check it feeds is never skipped)."""

    def refused(why):
        return UsageError(
            f"pe {command}: the run record {path} {why}, so {ckpt} cannot be checked against "
            f"CONFIG; restore the record, or copy the checkpoint out of its run to use it as CONFIG says"
        )

    data = load_record(path, refused)
    if not isinstance(data, dict):
        raise refused(f"holds {type(data).__name__}, not a mapping")
    return data


def _widths_as_recorded(now, recorded):
    """CONFIG's model (plain data) with each one-hot feed's ``[auto]`` width as the run recorded it:
    the run's own preprocessing.json fills it before the build (config/sizes.py), so it is the run's."""
    feeds = recorded.get("feeds") if isinstance(recorded.get("feeds"), dict) else {}
    for name, feed in (now.get("feeds") or {}).items():
        if AUTO in feed["shape"] and isinstance(feeds.get(name), dict):
            feed["shape"] = feeds[name].get("shape")
    return now


def _comparable(model):
    """A model record with its layers by name (so a difference names the layer and its key); its
    name is left out (it names nothing the checkpoint holds)."""
    layers = model.get("layers") if isinstance(model.get("layers"), list) else []
    by_name = {}
    for layer in layers:
        if isinstance(layer, dict) and len(layer) == 1:
            by_name.update(layer)
    order = list(by_name)
    return {
        "feeds": model.get("feeds"),
        "layers": by_name,
        "layer order": order,
        "loss": model.get("loss"),
        "fetches": model.get("fetches"),
    }
