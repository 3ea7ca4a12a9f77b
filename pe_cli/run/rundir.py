"""The run directory: what a training run leaves behind.

    runs/mnist_lenet/            (runs/mnist_lenet-2/, -3/ ... when it exists: never overwritten)
      config.yaml                the fully resolved run config
      model.yaml                 the resolved model (includes expanded)
      overrides.json             the command-line overrides it runs with (run_overrides.py: --resume restores them)
      config.resumed-step-N.yaml the config a resume from step N ran with (model.resumed-step-N.yaml: its model,
                                 when an override changed it)
      preprocessing.json         data.preprocessing fitted on data.train (run/preprocessing.py)
      metrics.csv, metrics.jsonl one row per report: phase, step, epoch, each fetch, the learning rate,
                                 samples/s, wall time
      fetches.npz                fetched values at each report (fetch.save: npz), or
      fetches/<name>-step-N.npy  one file per fetch and report (fetch.save: npy)
      ckpt/step-N/               checkpoints: save_persistables + trainer_state.json
      ckpt/last                  the name of the newest complete checkpoint (a text file)
      parent.json                a branch: the run and checkpoint it was resumed from
      .lock                      held (fcntl) by the pe process writing the run; the kernel frees it
      eval.json                  the last evaluation (pe train's final one, or pe eval's)
      graph-<kind>.dot/.txt      graph dumps (output.graphs)

Each file is written through a temporary name and checked there (pe_cli/base/atomic_file.py); metrics
rows are appended whole (run/run_metrics.py writes the metrics and fetches). MANAGED_FILES and the
others below are what no output a user names may replace."""

import fcntl
import json
import os
import re
import shutil
import sys

from ..base.atomic_file import OutputError, atomic_write, write_error, write_file
from ..base.output_rule import check_place
from ..base.errors import PeError
from ..io import save_npy_persistables
from ..io.manifest import manifest_problem, seal
from .record_file import load_record

STATE_FILE = "trainer_state.json"

# What pe manages in a run directory: no output a user names may replace one of these or land inside
# one of the folders (run/output_paths.py). A module that writes a new file into run directories adds
# its name here. A directory is a run directory when it holds RUN_MARKER and one of RUN_WITNESSES.
MANAGED_FILES = (
    "config.yaml",
    "model.yaml",
    "metrics.csv",
    "metrics.jsonl",
    "fetches.npz",
    "eval.json",
    "parent.json",
    ".lock",
    "overrides.json",
    "preprocessing.json",
    "split.json",
)
MANAGED_PATTERNS = (r"(config|model)\.resumed-step-\d+\.yaml", r"graph-\w+\.(dot|txt)")
MANAGED_DIRS = ("ckpt", "fetches", "tensorboard")
RUN_MARKER = "config.yaml"
RUN_WITNESSES = ("metrics.jsonl", "ckpt", ".lock", "model.yaml")


def is_run_dir(path):
    """True when ``path`` is a directory a training run made (by its marker files)."""
    return os.path.isfile(os.path.join(path, RUN_MARKER)) and any(
        os.path.lexists(os.path.join(path, w)) for w in RUN_WITNESSES
    )


def is_managed(name):
    """True when the entry ``name`` of a run directory is one pe manages."""
    return name in MANAGED_FILES or name in MANAGED_DIRS or any(re.fullmatch(p, name) for p in MANAGED_PATTERNS)


def new_run_dir(wanted):
    """Creates a fresh run directory: ``wanted`` itself, else ``wanted-2``, ``wanted-3``, ..."""
    if not os.path.lexists(wanted):  # an existing one: a numbered sibling is made
        check_place(wanted, "output directory", directory=True)
    candidate, n = wanted, 1
    try:
        os.makedirs(os.path.dirname(os.path.abspath(wanted)), exist_ok=True)
        while True:
            try:
                os.mkdir(candidate)
                return candidate
            except FileExistsError:
                n += 1
                candidate = f"{wanted}-{n}"
    except OSError as e:
        raise write_error(e, candidate, directory=True) from None


def runs_of(wanted):
    """Existing run directories for ``wanted`` (itself and its numbered siblings), oldest first."""
    parent = os.path.dirname(os.path.abspath(wanted)) or "."
    base = os.path.basename(wanted)
    if not os.path.isdir(parent):
        return []
    pattern = re.compile(re.escape(base) + r"(?:-(\d+))?$")
    found = []
    for entry in os.listdir(parent):
        m = pattern.fullmatch(entry)
        if m and os.path.isdir(os.path.join(parent, entry)):
            found.append((int(m.group(1) or 1), os.path.join(os.path.dirname(wanted), entry)))
    return [p for _, p in sorted(found)]


# -- checkpoints --------------------------------------------------------------------------------


class Checkpoints:
    def __init__(self, run_dir, keep=3):
        self.dir = os.path.join(run_dir, "ckpt")
        self.keep = keep

    def path(self, step):
        return os.path.join(self.dir, f"step-{step}")

    def save(self, exe, program, state):
        """Saves the program's persistables and the trainer state as ckpt/step-N, then points
        ckpt/last at it. Returns the checkpoint directory."""
        os.makedirs(self.dir, exist_ok=True)
        path = self.path(state["step"])
        state_bytes = (json.dumps(state, indent=1) + "\n").encode("utf-8")
        save_npy_persistables(
            exe,
            path,
            program,
            {STATE_FILE: state_bytes},  # one swap, sealed by its
            lambda tmp, written: seal(tmp, written, path),
        )  # manifest (io/manifest.py)
        problem = manifest_problem(path)  # read back where it lies before anything names it
        if problem:
            shutil.rmtree(path, ignore_errors=True)
            raise OutputError(
                f"cannot write the checkpoint {path}: read back, {problem}; ckpt/last still names the earlier one"
            )
        atomic_write(os.path.join(self.dir, "last"), os.path.basename(path) + "\n")
        self._prune()
        return path

    def _prune(self):
        """Keeps the ``keep`` checkpoints written last (by the time they were written, so a run
        that went back to an earlier step never deletes what it just saved)."""
        if not self.keep:
            return
        best = self.pointed("best")
        for old in sorted(self.complete(), key=_written_at)[: -self.keep]:
            if best is None or os.path.realpath(old) != os.path.realpath(best):  # ckpt/best stays
                shutil.rmtree(old, ignore_errors=True)

    def mark_best(self, path):
        """Points ckpt/best at the checkpoint ``path`` (never pruned while it is the best)."""
        atomic_write(os.path.join(self.dir, "best"), os.path.basename(path) + "\n")

    def pointed(self, pointer):
        """The complete checkpoint ckpt/<pointer> (last, best) names, or None (what it holds must be
        a checkpoint's name, ``step-N``: never a path out of the run)."""
        path = os.path.join(self.dir, pointer)
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            name = f.read(200).decode("utf-8", "replace").strip()
        target = os.path.join(self.dir, name)
        return target if re.fullmatch(r"step-\d+", name) and os.path.isfile(os.path.join(target, STATE_FILE)) else None

    def remove_interrupted(self):
        """Removes what a save killed half-way left behind (``.step-N.tmp-*`` beside the checkpoints,
        ``.<file>.tmp-*`` in the run directory and fetches/): never a complete checkpoint, never read."""
        removed = []
        for folder in (self.dir, os.path.dirname(self.dir), os.path.join(os.path.dirname(self.dir), "fetches")):
            if not os.path.isdir(folder):
                continue
            for entry in os.listdir(folder):
                if entry.startswith(".") and ".tmp-" in entry:
                    path = os.path.join(folder, entry)
                    shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)
                    removed.append(path)
        return removed

    def complete(self):
        if not os.path.isdir(self.dir):
            return []
        return [
            os.path.join(self.dir, e)
            for e in os.listdir(self.dir)
            if e.startswith("step-") and os.path.isfile(os.path.join(self.dir, e, STATE_FILE))
        ]

    def last(self):
        """The newest complete checkpoint, or None."""
        path = self.pointed("last")
        if path is not None:
            return path
        complete = sorted(self.complete(), key=step_of)
        newest = complete[-1] if complete else None
        pointer = os.path.join(self.dir, "last")
        if os.path.lexists(pointer) and pointer not in _WARNED:
            _WARNED.add(pointer)
            print(
                f"pe: warning: {pointer} names no complete checkpoint (a save was cut short, or it was edited); "
                f"{f'taking the newest complete one, {newest}' if newest else 'the run has none'}",
                file=sys.stderr,
            )
        return newest


_WARNED = set()  # the ckpt/last pointers already said to name nothing (once a process)


def _written_at(path):
    return (os.path.getmtime(os.path.join(path, STATE_FILE)), step_of(path))


def step_of(path):
    m = re.search(r"step-(\d+)$", path)
    return int(m.group(1)) if m else -1


_STATE_FIELDS = {"step": int, "epoch": int, "batch": int, "batch_size": int, "samples": int, "wall_s": (int, float)}


def read_state(ckpt):
    """The trainer state of a checkpoint, checked field by field before anything uses it."""
    path = os.path.join(ckpt, STATE_FILE)
    state = load_record(
        path, lambda why: PeError(f"{ckpt} is not a complete checkpoint: {STATE_FILE} is unreadable (it {why})"), "json"
    )
    if not isinstance(state, dict):
        raise PeError(f"{path}: not a trainer state (a JSON object); the checkpoint is damaged")
    for name, kind in _STATE_FIELDS.items():
        value = state.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, kind) or value < 0:
            raise PeError(
                f"{path}: '{name}' is {repr(value)[:40]}, not a number >= 0; the checkpoint is "
                f"damaged: resume from another one (ckpt/step-N)"
            )
    return state


def is_newest(ckpt, run_dir):
    """True when ``ckpt`` is the run's newest checkpoint (resuming it continues the run in place)."""
    last = Checkpoints(run_dir).last()
    return last is not None and os.path.realpath(last) == os.path.realpath(ckpt)


def start_branch(run_dir, ckpt, step):
    """A new run directory continuing ``run_dir`` from its older checkpoint ``ckpt`` (step ``step``):
    the parent keeps everything it had; the branch records where it came from (parent.json) and
    starts with the parent's metrics and fetches up to that step."""
    branch = new_run_dir(run_dir.rstrip(os.sep))
    for name in ("metrics.csv", "metrics.jsonl", "fetches.npz", "model.yaml"):
        source = os.path.join(run_dir, name)
        if os.path.isfile(source):
            with open(source, "rb") as src:
                write_file(os.path.join(branch, name), lambda f, src=src: shutil.copyfileobj(src, f))
    atomic_write(
        os.path.join(branch, "parent.json"),
        json.dumps({"run": os.path.abspath(run_dir), "checkpoint": os.path.abspath(ckpt), "step": step}, indent=1)
        + "\n",
    )
    return branch


class RunLock:
    """One pe process per run directory: an exclusive ``fcntl`` lock on ``<run>/.lock``, released
    by the kernel when the process ends (kill -9 too), so no stale lock is ever left behind."""

    _held = {}  # real path of a .lock -> [fd, depth]: this process holds it (a resume took it first)

    def __init__(self, run_dir):
        self.path = os.path.join(run_dir, ".lock")
        self.fd = None

    def __enter__(self):
        held = self._held.get(os.path.realpath(self.path))
        if held is not None:  # this process holds it already: entered again, released by the first
            held[1] += 1
            self.fd = held[0]
            return self
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise PeError(
                f"{os.path.dirname(self.path)} is in use by another pe process (pid {holder}); "
                f"wait for it to finish, or stop it"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        self._held[os.path.realpath(self.path)] = [fd, 1]
        return self

    def __exit__(self, *exc):
        key = os.path.realpath(self.path)
        held = self._held[key]
        held[1] -= 1
        if held[1] == 0:
            del self._held[key]
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
        self.fd = None


def resolve_checkpoint(path, prefer_best=False):
    """A checkpoint directory from what users type: a checkpoint (ckpt/step-N), a ckpt/last or
    ckpt/best file, the ckpt directory or a run directory: its newest checkpoint, or with
    ``prefer_best`` (pe eval, predict, export) the one ckpt/best names where the run kept one.
    Returns (checkpoint, run dir)."""
    if not os.path.exists(path):
        raise PeError(f"checkpoint {path} does not exist")
    path = os.path.normpath(path)
    if os.path.isfile(path) and os.path.basename(path) in ("last", "best"):
        pointed = Checkpoints(os.path.dirname(os.path.dirname(path)) or ".").pointed(os.path.basename(path))
        if pointed is None:
            raise PeError(f"{path} names no complete checkpoint")
        return pointed, os.path.dirname(os.path.dirname(pointed)) or "."
    if os.path.isfile(os.path.join(path, STATE_FILE)):
        return path, os.path.dirname(os.path.dirname(path)) or "."
    run_dir = os.path.dirname(path) if os.path.basename(path) == "ckpt" else path
    best = Checkpoints(run_dir).pointed("best") if prefer_best else None
    if best:
        return best, run_dir
    last = Checkpoints(run_dir).last()
    if last:
        return last, run_dir
    raise PeError(f"{path} holds no complete checkpoint (a ckpt/step-N directory with {STATE_FILE})")
