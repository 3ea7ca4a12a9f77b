"""Where an output a user names may go (``pe predict -o``, ``pe eval --out``, ``pe export``, ``pe graph
-o``, ``pe plot -o``, ``pe infer -o``, ``--log_dir``): the rule every writer follows
(pe_cli/base/output_rule.py: a path that can take a file, never an input of the command, never
through a symlink), and on top of it, what only runs know: never
over a file pe manages in a run directory (rundir.MANAGED_FILES and the others), never inside a
checkpoint, and an inference directory never a run directory itself. Paths are compared resolved
(symlinks, ``..``), so no spelling gets around the rule. Each refusal is one line naming a place that
works."""

import os
import re

from ..base.output_rule import check_nul, check_output as check_writable
from ..base.errors import PeError
from .rundir import STATE_FILE, is_managed, is_run_dir


def check_output(path, option, example, directory=False, inputs=()):
    """Raises a one-line PeError when ``path`` may not take the output of ``option`` (e.g. "pe predict
    -o"); ``example`` is a name that would work beside the run (e.g. "predictions.npz"); ``inputs``:
    (path, what it is) of the files the command reads (output_rule.check_output)."""
    if path is None:
        return
    path = os.fspath(path)
    check_writable(path, option, directory, example, inputs)
    found = _protected(os.path.realpath(path), directory)
    if found:
        what, place = found
        raise PeError(f"{option} {path}: {what}; write elsewhere, e.g. {os.path.join(_shown(place), example)}")


def check_run_out(path, option):
    """A new run directory (``path`` or a numbered sibling of it) never goes inside a checkpoint or a
    folder pe manages in a run; an existing run directory is fine (its sibling is made)."""
    path = os.fspath(path)
    check_nul(path, option)
    found = _protected(os.path.realpath(path), directory=False)
    if found:
        beside = os.path.dirname(_shown(found[1]))
        raise PeError(
            f"{option} {path}: {found[0]}; a run directory goes elsewhere, e.g. "
            f"{os.path.join(beside, os.path.basename(os.path.normpath(path)))}"
        )


def _protected(real, directory):
    """(what the path would replace, the folder to suggest instead), or None."""
    here = real
    while True:
        parent = os.path.dirname(here)
        if _is_checkpoint(here):
            run = os.path.dirname(parent) if os.path.basename(parent) == "ckpt" else parent
            where = "that is" if here == real else "that is inside"
            return f"{where} checkpoint {_shown(here)}", run
        if is_run_dir(here):
            if here == real:
                return (f"that is the run directory {_shown(here)}", here) if directory else None
            entry = os.path.relpath(real, here).split(os.sep)[0]
            if is_managed(entry):
                managed = os.path.join(_shown(here), entry)
                if entry == os.path.relpath(real, here):
                    return f"that is {managed}, which pe manages in the run", here
                return f"that is inside {managed}, which pe manages in the run", here
            return None
        if parent == here:
            return None
        here = parent


def _is_checkpoint(path):
    return os.path.isfile(os.path.join(path, STATE_FILE)) or (
        re.fullmatch(r"step-\d+", os.path.basename(path)) is not None
        and os.path.basename(os.path.dirname(path)) == "ckpt"
        and is_run_dir(os.path.dirname(os.path.dirname(path)))
    )


def _shown(path):
    """``path`` relative to the working directory when it is below it, else absolute."""
    rel = os.path.relpath(path)
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel
