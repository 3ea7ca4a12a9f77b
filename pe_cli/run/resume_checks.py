"""What ``pe train --resume`` checks before it reads or says anything of a run:

- the run's lock is taken first (``resume_lock``), before its checkpoint is looked for or read: of
  two resumes of one run the second is refused at once ("in use by another pe process"), never left
  to read a checkpoint the first is replacing (a misleading error, or a branch made of it);
- a run that has already finished is said to be so ("nothing to do") only once its checkpoint is
  found to be this config's run's (``check_finished``): CONFIG agrees with the run's records
  (run_record.py), and the checkpoint loads into this config's program as a resume would load it,
  holding no optimizer state of another optimizer and lacking none of this one's.
"""

import contextlib
import os

from ..base.errors import PeError, UsageError
from ..distributed.processes import world_size
from ..executor import Executor, Scope, scope_guard
from ..io.checkpoint import is_persistable
from ..io.checkpoint_files import saved_names
from .resume_state import load_resumed
from .rundir import Checkpoints, RunLock, resolve_checkpoint, runs_of
from .run_record import check_record


def latest_run(cfg, out=None):
    """The run of ``out`` (default: output.dir; its numbered siblings too) whose newest checkpoint was
    written last, or None: what ``--resume last`` continues."""
    candidates = [r for r in runs_of(out or cfg.data["output"]["dir"]) if Checkpoints(r).last()]
    return max(candidates, key=lambda r: os.path.getmtime(Checkpoints(r).last())) if candidates else None


@contextlib.contextmanager
def resume_lock(cfg, resume, out=None):
    """Holds the lock of the run ``resume`` names (rundir.RunLock) while the body runs; nothing for a
    new run, for the ranks of an mpiexec run (rank 0 locks what it writes) or for a run directory
    this process may not write (a branch is made beside it)."""
    run_dir = None
    if resume is not None and world_size() == 1:
        if resume == "last":
            run_dir = latest_run(cfg, out)
        else:
            try:
                run_dir = resolve_checkpoint(resume)[1]
            except PeError:
                run_dir = None  # said where the checkpoint is looked for, under no lock
    with contextlib.ExitStack() as stack:
        if run_dir is not None and os.access(run_dir, os.W_OK):
            stack.enter_context(RunLock(run_dir))
        yield


def check_finished(cfg, setup):
    """Refuses (one line) a finished run's checkpoint that is not this config's run's, before
    "nothing to do" is said (see the module doc)."""
    ckpt, program = setup.ckpt, setup.programs.main
    check_record(cfg, ckpt, setup.run_dir, "train", f"pe train {{record}} --resume {ckpt}")
    with scope_guard(Scope()):
        Executor(setup.place).run(setup.programs.startup)
        notes = load_resumed(ckpt, setup.programs, cfg.overrides)  # another model: refused there
    mine = {v.name for v in program.list_vars() if is_persistable(v)}
    other = sorted(n for n, path in saved_names(ckpt).items() if path.endswith(".npy") and n not in mine)
    if other or notes:
        held = f"holds '{other[0]}', which this config's program has no variable for" if other else notes[0]
        raise UsageError(
            f"--resume {ckpt}: the run has finished, but its checkpoint is not this config's: it "
            f"{held} (another optimizer?); give the run's own config (its config.yaml), or train "
            f"this one without --resume"
        )
