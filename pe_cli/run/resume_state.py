"""What a resume takes from the checkpoint and what from the config (``pe train --resume``).

A resume continues the run as its config says now (CONFIG, the run's recorded overrides, then those
given to the resume), so every override applies or is refused in one line:

- the state of training comes from the checkpoint: parameters, optimizer accumulators (moments,
  velocities, beta powers), learning-rate step counters, batch-norm statistics: every persistable
  variable an op of the program writes;
- the run's constants come from the config: a persistable variable that no op writes (the constant
  learning rate, ``learning_rate_0``) keeps the value the startup program gives it, so
  ``optimizer.learning_rate=X`` on resume trains on with X;
- optimizer state the checkpoint does not hold (``optimizer.type`` changed on resume: Adam's
  moments after SGD) starts as a new run starts it, and the resume says so;
- a parameter the checkpoint lacks, or a variable whose shape differs from the checkpoint's
  (``model.layers.fc.size`` changed), cannot apply: refused in one line before anything is written;
- ``data.batch_size`` given mid-epoch continues at the same sample of the epoch (``batch_in_epoch``);
- the preprocessing is the one the run fitted at its start (its checkpoints are trained on it): a
  ``data.preprocessing`` that differs from the run's is refused naming the first differing key.
"""

import json
import os
import types

import numpy as np

from ..base.errors import PeError, UsageError
from ..base.selected_rows import SelectedRows
from ..data.preprocessing import KIND_KEYS, with_defaults
from ..executor.scope import global_scope
from ..io.checkpoint import is_parameter, is_persistable
from ..io.checkpoint_files import check_value, read_dir, saved_names
from .record_file import load_record

FN = "--resume"


def _written(program):
    return {n for block in program.blocks for op in block.ops for n in op.output_arg_names}


def _constants(programs):
    """The names of the run's constants: persistable non-parameters the startup program sets and
    no op of the main program writes (the constant learning rate)."""
    return _written(programs.startup) - _written(programs.main)


def load_resumed(ckpt, programs, changed):
    """Loads ``ckpt`` into the global scope (the startup program has run) as the module says;
    returns the lines that tell the user what the resume starts afresh. ``changed``: the overrides
    this resume gives (named when one cannot apply)."""
    program = programs.main
    persistables = [v for v in program.list_vars() if is_persistable(v) and str(v.type).lower() != "raw"]
    constants, saved = _constants(programs), set(saved_names(ckpt))
    state = [v for v in persistables if is_parameter(v) or v.name not in constants]
    missing = [v for v in state if v.name not in saved]
    lacking = [v.name for v in missing if is_parameter(v)]
    if lacking:
        raise UsageError(
            f"{FN} {ckpt}: the checkpoint has no parameter '{lacking[0]}' of the model "
            f"{_because(changed)}: a resume cannot add parameters; {_remedy(changed)}"
        )
    present = [v for v in state if v.name in saved]
    unchecked = [types.SimpleNamespace(name=v.name, shape=None, dtype=None, type=v.type) for v in present]
    values = read_dir(FN, ckpt, unchecked)  # {name: (value, lod)}, shapes compared below
    for v in present:
        shape = _other_shape(v, values[v.name][0])
        if shape is not None:
            raise UsageError(
                f"{FN} {ckpt}: '{v.name}' is {shape} in the checkpoint and {list(v.shape)} "
                f"{_because(changed)}: a resume cannot change a variable's shape; {_remedy(changed)}"
            )
    scope = global_scope()
    for v in present:
        value, lod = values[v.name]
        scope.set_array(v.name, check_value(FN, v, value, f"'{ckpt}'"), lod)
    if not missing:
        return []
    names = ", ".join(v.name for v in missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
    return [
        f"the checkpoint holds no {names} (the optimizer or its learning-rate schedule changed): "
        f"they start as in a new run"
    ]


def _other_shape(var, value):
    """The shape of the saved ``value`` where it is not ``var``'s (a 0-d value fits a [1] variable,
    as check_value reads it), else None."""
    if var.shape is None or isinstance(value, SelectedRows):
        return None
    want, got = tuple(var.shape), tuple(np.shape(value))
    if got == () and want == (1,):
        return None
    if len(want) != len(got) or any(w >= 0 and w != g for w, g in zip(want, got)):
        return list(got)
    return None


def _because(changed):
    return f"with {' '.join(changed)}" if changed else "in the config resumed with"


def _remedy(changed):
    return (
        "drop that override, or start a new run without --resume"
        if changed
        else "resume with the config the run was trained with, or start a new run without --resume"
    )


def batch_in_epoch(state, batch_size, ckpt):
    """The batch (of ``batch_size``) a resume starts its epoch at: the checkpoint's ``batch`` counts
    batches of the size it trained with (``batch_size`` in its state; absent in older checkpoints),
    so ``data.batch_size`` given to a resume continues at the same sample of the epoch; a position
    that is not a whole number of the new batches is refused."""
    before = state.get("batch_size") or batch_size
    done = state["batch"] * before
    if done % batch_size:
        raise UsageError(
            f"{FN} {ckpt}: data.batch_size is {batch_size}, but the checkpoint is {done} samples into "
            f"epoch {state['epoch'] + 1} ({state['batch']} batches of {before}), not a whole number of "
            f"batches of {batch_size}; give a batch size that divides {done}, or resume a checkpoint "
            f"at an epoch's end"
        )
    return done // batch_size


def check_same_preprocessing(cfg, run_dir):
    """A resume keeps the preprocessing the run fitted when it started; a ``data.preprocessing``
    that differs from the one recorded in ``run_dir/config.yaml`` is refused naming the first
    difference (nothing to compare in a run without that file)."""
    path = os.path.join(run_dir, "config.yaml")
    if not os.path.lexists(path):
        return

    def refused(why):
        return PeError(f"{path} {why}; a resume checks data.preprocessing against the run's record: restore it")

    record = load_record(path, refused)
    if not isinstance(record, dict) or not isinstance(record.get("data") or {}, dict):
        raise refused("is not the config record pe wrote (a mapping)")
    recorded = (record.get("data") or {}).get("preprocessing")
    now = json.loads(json.dumps(cfg.data["data"]["preprocessing"]))
    where = first_difference(effective_preprocessing(recorded), effective_preprocessing(now), ("data", "preprocessing"))
    if where is None:
        return
    key, was, is_now = where
    raise UsageError(
        f"{FN} {run_dir}: {'.'.join(key)} is {shown(is_now)} here and {shown(was)} in the run "
        f"({path}): a resume keeps the preprocessing the run fitted on data.train when it started, "
        f"which its checkpoints are trained on; drop that change, or start a new run without --resume"
    )


def effective_preprocessing(specs):
    """Each feed's preprocessing with its kind's defaults filled in (an unset key and its default
    are the same preprocessing)."""
    if not isinstance(specs, dict):
        return {}
    return {
        feed: with_defaults(s) if isinstance(s, dict) and s.get("kind") in KIND_KEYS else s for feed, s in specs.items()
    }


def first_difference(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            found = first_difference(a.get(k), b.get(k), path + (str(k),))
            if found is not None:
                return found
        return None
    return None if a == b else (path, a, b)


def shown(value):
    return "unset" if value is None else json.dumps(value)
