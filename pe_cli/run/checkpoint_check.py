"""A checkpoint is checked before pe names it as good (--resume, the "already finished" message,
pe eval, pe predict, pe export): its files against its manifest (sizes, sha256: pe_cli/io/manifest.py).
A damaged one is one line naming the newest intact checkpoint of the run to go on from."""

import os

from ..base.errors import PeError
from ..io.manifest import manifest_problem
from .rundir import Checkpoints, step_of, read_state, resolve_checkpoint


def checked_checkpoint(path, prefer_best=False):
    """``resolve_checkpoint(path, prefer_best)`` (the checkpoint and its run directory), once the checkpoint is
    checked; a damaged one is a PeError naming the newest intact checkpoint before it."""
    ckpt, run_dir = resolve_checkpoint(path, prefer_best)
    read_state(ckpt)  # a damaged trainer state said field by field
    problem = manifest_problem(ckpt)
    if problem is None:
        return ckpt, run_dir
    good = _previous_good(ckpt, run_dir)
    if good is None:
        advice = "no other checkpoint of the run is intact: train again without --resume"
    else:
        advice = f"resume from {good}: pe train CONFIG --resume {good}"
    raise PeError(f"{ckpt} is damaged ({problem}); {advice}")


def _previous_good(ckpt, run_dir):
    """The newest intact checkpoint of ``run_dir`` written before ``ckpt`` (by step), else the newest
    intact one at all, or None."""
    others = [c for c in Checkpoints(run_dir).complete() if os.path.realpath(c) != os.path.realpath(ckpt)]
    step = step_of(ckpt)
    ordered = sorted((c for c in others if step_of(c) < step), key=step_of, reverse=True) + sorted(
        (c for c in others if step_of(c) > step), key=step_of, reverse=True
    )
    return next((c for c in ordered if manifest_problem(c) is None), None)
