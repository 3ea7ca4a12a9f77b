"""The Compressor's checkpoints: ``<checkpoint_path>/<epoch>/`` holds ``persistables.npz`` (every
persistable tensor of the optimized program, pruned shapes included), ``eval_model/`` when asked,
and ``context.json`` (the epoch, the eval results so far, every variable's shape in the programs),
written last: a directory without it is an interrupted write and is ignored. Each file is written
atomically; nothing is pickled, and the archive is read back with pe's checked .npz reader."""

import io
import json
import os

import numpy as np

from .....base.atomic_file import atomic_write, write_file
from .....base.npy import read_npz

__all__ = ["latest_checkpoint", "load_checkpoint", "read_state", "save_checkpoint"]

_CONTEXT = "context.json"
_PARAMS = "persistables.npz"


def _persistables(program, scope):
    names = [v.name for v in program.global_block().vars.values() if v.persistable]
    return {
        n: np.array(scope.find_var(n).get_tensor())
        for n in names
        if scope.find_var(n) is not None and scope.find_var(n).is_initialized()
    }


def _shapes(programs):
    return {
        key: {v.name: list(v.shape) for v in p.global_block().vars.values() if v.shape is not None}
        for key, p in programs.items()
        if p is not None
    }


def save_checkpoint(path, epoch_id, scope, programs, eval_results, save_eval_model=None):
    """Writes the checkpoint of ``epoch_id``; ``programs`` maps 'optimize'/'eval' to programs;
    ``save_eval_model(dir)`` writes the inference model when given."""
    directory = os.path.join(path, str(epoch_id))
    arrays = _persistables(programs["optimize"], scope)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_file(os.path.join(directory, _PARAMS), lambda f: f.write(buffer.getvalue()))
    if save_eval_model is not None:
        save_eval_model(os.path.join(directory, "eval_model"))
    state = {"epoch_id": epoch_id, "eval_results": eval_results, "shapes": _shapes(programs)}
    # eval results may be numpy numbers (an eval_func's np.mean): written as the numbers they are
    atomic_write(
        os.path.join(directory, _CONTEXT), json.dumps(state, indent=1, default=lambda v: np.asarray(v).tolist())
    )
    return directory


def latest_checkpoint(path):
    """The directory of the newest complete checkpoint under ``path``, or None."""
    if not path or not os.path.isdir(path):
        return None
    epochs = [int(d) for d in os.listdir(path) if d.isdigit() and os.path.isfile(os.path.join(path, d, _CONTEXT))]
    return os.path.join(path, str(max(epochs))) if epochs else None


def read_state(directory):
    """The context state a checkpoint saved (epoch_id, eval_results, shapes)."""
    context_file = os.path.join(directory, _CONTEXT)
    try:
        with open(context_file, encoding="utf-8") as f:
            state = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(
            f"{context_file}: not a readable Compressor checkpoint ({e}); "
            "remove the directory to start from the epoch before"
        ) from None
    return state


def load_checkpoint(directory, state, scope, place, programs):
    """Restores the tensors and the variable shapes of the checkpoint whose state is ``state``."""
    for name, value in read_npz(os.path.join(directory, _PARAMS)).items():
        scope.var(name).get_tensor().set(value, place)
    for key, shapes in state.get("shapes", {}).items():
        program = programs.get(key)
        if program is None:
            continue
        for name, shape in shapes.items():
            var = program.global_block().vars.get(name)
            if var is not None:
                var.shape = tuple(shape)
        program._bump()
