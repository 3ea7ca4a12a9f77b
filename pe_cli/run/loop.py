"""The training loop of ``pe train``, once everything is built and the run directory exists. Its
steps read like the run config: each step fetches ``fetch.names`` (and the loss); every
``fetch.every`` steps the window's means are reported and saved; ``checkpoint.every_steps`` /
``checkpoint.every_epochs`` save checkpoints; ``eval.every_epochs`` evaluates on data.eval; the
loop stops at ``epochs``, ``max_steps`` or Ctrl-C, then saves, evaluates and writes eval.json.
"""

import json
import os
import signal
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..base.errors import NanInfError, PeError
from ..executor import global_scope, nan_check
from ..kernels import compile_watch
from . import async_epoch
from .async_epoch import async_threads
from .distributed import Trainers
from .divergence import StepStart, first_bad_op, non_finite, quiet_float_warnings
from .evaluation import run_eval
from .predmetrics import Predictions, brief
from .rundir import atomic_write
from .watch import watches


@dataclass
class TrainResult:
    run_dir: str
    step: int
    epoch: int
    train: dict = field(default_factory=dict)  # last reported training metrics
    eval: dict = field(default_factory=dict)  # the reported evaluation's fetch means: the last, or keep_best's best
    eval_samples: int = 0
    checkpoint: str = None
    interrupted: bool = False
    resumed_from: str = None
    stopped_early: str = None  # why early_stopping ended the run
    nothing_to_do: bool = False  # --resume of a run that had already finished
    branch_of: str = None  # the run an older checkpoint of which this run continues
    rank: int = 0  # this trainer's rank (several processes: only rank 0 reports)
    history: list = field(default_factory=list)  # (step, loss) of every step of this process
    curves: str = None  # <run dir>/curves.png, drawn at the end where output.curves asks
    best: str = None  # keep_best: the best checkpoint and its metric, as pe train prints it
    reported: str = None  # which checkpoint eval, eval_samples and prediction are of, as pe train prints it
    role: str = "trainer"  # "pserver": a parameter server of pserver mode, which reports nothing
    prediction: dict = None  # that evaluation's prediction report: the outputs against data.eval's labels


@dataclass
class Setup:
    """What train() prepared before the run directory existed."""

    programs: object  # run.build.Programs
    program: object  # the program to run each step (main, or a CompiledProgram)
    place: object
    train_data: object  # Batcher
    eval_data: object  # Batcher or None
    ckpt: str = None  # the checkpoint resumed from
    run_dir: str = None  # its run directory
    trainers: Trainers = field(default_factory=Trainers)  # this process among the trainer processes
    preprocessing: object = None  # data.preprocessing fitted on data.train (run/preprocessing.py), or None
    notes: list = field(default_factory=list)  # what a resume starts afresh (run/resume_state.py)
    split: object = None  # data.split's rows (run/split.py), or None


@dataclass
class Outputs:
    """Where the loop writes: metrics.csv/jsonl, fetches.npz, ckpt/, and the progress display."""

    metrics: object
    store: object
    checkpoints: object
    progress: object


class StopFlag:
    """Ctrl-C during training asks for a clean stop (checkpoint, then exit); a second one aborts.

    ``requested`` is set by the signal, at any moment; the loop acts on ``now``, which each step's
    ``Trainers.agree`` settles once for every rank (any rank's request stops them all after the same
    step). A request arriving after that step's agreement waits for the next step's: a rank that left
    on its own would leave the others waiting in the next collective."""

    def __init__(self):
        self.requested = False
        self.now = False
        self._old = None

    def settle(self, any_rank_requested):
        self.now = bool(any_rank_requested)

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


class TrainLoop:
    def __init__(self, cfg, exe, setup, outputs, result):
        self.cfg, self.exe, self.setup, self.out, self.result = cfg, exe, setup, outputs, result
        self.every = cfg.data["fetch"]["every"]
        self.checkpoint = cfg.data["checkpoint"]
        self.epochs = cfg.data["epochs"]
        self.eval_every = cfg.data["eval"]["every_epochs"]
        self.eval_steps = cfg.data["eval"]["every_steps"] if setup.eval_data is not None else None
        self.fetch_names = cfg.train_fetches
        self.eval_names = cfg.eval_fetches
        self.loss_name = cfg.model.loss
        self.run_names = list(self.fetch_names) + ([self.loss_name] if self.loss_name not in self.fetch_names else [])
        self.fetch_vars = setup.programs.fetch_vars(self.run_names)
        self.persistables = [v.name for v in setup.programs.main.list_vars() if v.persistable]
        self.lr_var, self.lr_value = _scheduled_lr(setup.programs), None
        optimizer = setup.programs.optimizer
        self.lr_name = optimizer._global_learning_rate(setup.programs.main).name if optimizer else None
        if self.lr_var is not None:  # fetched with the step: the value the step ran with
            self.fetch_vars = self.fetch_vars + [self.lr_var]
        self.eval_vars = [v.name for v in setup.programs.fetch_vars(self.eval_names)]

    def run(self, state, max_steps, stop):
        """Trains from ``state`` (step, epoch, batch, wall_s, samples) until done; fills the result."""
        self.step, self.epoch, self.batch = state["step"], state["epoch"], state["batch"]
        self.samples = state["samples"]
        self.wall0 = time.monotonic() - state["wall_s"]
        self.last_saved = self.last_eval = self.last_step = self.eval_epoch = None
        self.step_of_process = 0
        self.best, self.early = watches(self.cfg, state.get("watch"))
        self._new_window()
        progress = self.out.progress
        with (
            nan_check.enabled(self.cfg.data["check_nan_inf"] or nan_check.ENABLED),
            quiet_float_warnings(),
            compile_watch.watching(progress.compiling, progress.compiling_aside) as self.compiles,
        ):
            self._epochs(max_steps, stop)

    def _epochs(self, max_steps, stop):
        while self.epoch < self.epochs and not self._reached(max_steps):
            if not self._epoch(max_steps, stop):  # left the epoch early: Ctrl-C or max_steps
                self.epoch, self.batch = self.next_position
                break
            self.epoch, self.batch = self.epoch + 1, 0
            self._end_of_epoch()
            if stop.now or self.result.stopped_early:
                break
        self._finish(stop)

    def _reached(self, max_steps):
        return max_steps is not None and self.step >= max_steps

    def _epoch(self, max_steps, stop):
        """Runs the rest of the current epoch; False when it stopped before the end."""
        if async_threads(self.cfg):
            return async_epoch.train_epoch(self, max_steps, stop)
        data = self.setup.train_data
        for b, batch in data.epoch(self.epoch, self.batch):
            fetched, speed, now = self._step(batch, stop)
            self.last_step = (fetched, speed, now, self.epoch + 1)
            self.next_position = (self.epoch, b + 1) if b + 1 < len(data) else (self.epoch + 1, 0)
            if self.step % self.every == 0:
                self._report(fetched, speed, now)
            if self.checkpoint["every_steps"] and self.step % self.checkpoint["every_steps"] == 0:
                self._save(*self.next_position)
            if self.eval_steps and self.step % self.eval_steps == 0 and self.last_eval != self.step:
                self._evaluate(self.epoch + 1, self.next_position)
            if self._reached(max_steps) or stop.now or self.result.stopped_early:
                return False
        return True

    def _step(self, batch, stop):
        n = len(next(iter(batch.values())))  # the global batch: every trainer's rows
        start = StepStart(self.persistables)
        try:
            values = self.exe.run(self.setup.program, feed=self.setup.trainers.shard(batch), fetch_list=self.fetch_vars)
        except NanInfError as e:
            raise PeError(f"step {self.step + 1}: {e} (check_nan_inf)") from None
        if self.step_of_process == 0:  # the first step compiles what a first run must
            self.out.progress.compiled(self.compiles.count, self.compiles.seconds)
        self.step_of_process += 1
        self.step += 1
        self.samples += n
        self.window_samples += n
        fetched = self.fetched(values)
        means = self.setup.trainers.agree({name: float(np.mean(fetched[name])) for name in self.run_names}, stop)
        loss = means[self.loss_name]
        self.result.history.append((self.step, loss))
        if not np.isfinite(loss):
            raise PeError(self._diverged(loss, batch, start))
        for name in self.fetch_names:
            self.window[name].append(means[name])
        now = time.monotonic()
        speed = self.window_samples / max(now - self.window_t0, 1e-9)
        self.out.progress.update(self.step, self.epoch + 1, {k: v[-1] for k, v in self.window.items()}, speed)
        return fetched, speed, now

    def _diverged(self, loss, batch, start):
        """The message of a non-finite loss: where it came from (the step again, from its start,
        with check_nan_inf on), and the checkpoint that is still good."""
        origin = first_bad_op(self.exe, self.setup.programs.main, batch, start)
        where = f"; the first NaN/Inf: {origin}" if origin else ""
        kept = f"; {self.result.checkpoint} (ckpt/last) is the last good checkpoint" if self.result.checkpoint else ""
        return (
            f"step {self.step}: the loss '{self.loss_name}' is {loss}{where}{kept}; lower "
            f"optimizer.learning_rate or check the data's transforms"
        )

    def fetched(self, values):
        """A step's fetched values by name; the learning rate the step ran with is kept aside."""
        if self.lr_var is not None:
            self.lr_value = float(np.asarray(values[-1]).reshape(-1)[0])
        return dict(zip(self.run_names, values))

    def _lr(self):
        """The learning rate the last step used: the schedule's variable as that step computed it
        (fetched with the step), or the optimizer's constant learning-rate variable in the scope."""
        if self.lr_var is not None:
            return self.lr_value
        value = global_scope().get_array(self.lr_name) if self.lr_name else None
        return None if value is None else float(np.asarray(value).reshape(-1)[0])

    def _new_window(self):
        """The steps since the last report, whose means the next report gives."""
        self.window = {n: [] for n in self.fetch_names}
        self.window_samples, self.window_t0 = 0, time.monotonic()

    def _report(self, fetched, speed, now, epoch=None):
        """A row of metrics (the window's means) and the fetched values of this step."""
        epoch = epoch or self.epoch + 1
        means = {k: float(np.mean(v)) for k, v in self.window.items() if v}
        self.out.metrics.write(
            {
                "phase": "train",
                "step": self.step,
                "epoch": epoch,
                **means,
                "lr": self._lr(),
                "samples_per_s": speed,
                "wall_s": now - self.wall0,
            }
        )
        self.out.store.add(self.step, {name: fetched[name] for name in self.fetch_names})
        self.out.progress.report("train", self.step, epoch, means, speed)
        self.result.train = means
        self._new_window()

    def _end_of_epoch(self):
        if (
            self.setup.eval_data is not None
            and self.eval_every
            and self.epoch % self.eval_every == 0
            and self.epoch < self.epochs
            and self.last_eval != self.step
        ):
            self._evaluate(self.epoch, (self.epoch, 0))
        every = self.checkpoint["every_epochs"]
        if every and self.epoch % every == 0 and self.last_saved != self.step:
            self._save(self.epoch, 0)

    def _save(self, next_epoch, next_batch):
        bad = non_finite(self.persistables)
        if bad:  # never a checkpoint of a diverged model: ckpt/last stays at the last good one
            kept = f"; ckpt/last stays at {self.result.checkpoint}" if self.result.checkpoint else ""
            raise PeError(
                f"step {self.step}: {', '.join(bad[:3])} hold NaN or Inf, so no checkpoint is "
                f"written{kept}; lower optimizer.learning_rate"
            )
        state = {
            "step": self.step,
            "epoch": next_epoch,
            "batch": next_batch,
            "batch_size": self.setup.train_data.batch_size,
            "wall_s": time.monotonic() - self.wall0,
            "samples": self.samples,
            "config": self.cfg.path,
            "model": self.cfg.model.name,
            "watch": {"best": self.best and self.best.state(), "early": self.early and self.early.state()},
        }
        path = self.out.checkpoints.save(self.exe, self.setup.programs.main, state)
        self.out.store.flush()
        self.last_saved = self.step
        self.result.checkpoint = path

    def _evaluate(self, at_epoch, position=None):
        """``at_epoch``: the 1-based epoch the evaluation follows; ``position``: where training
        continues (for the checkpoint keep_best saves)."""
        predictions = Predictions(self.cfg, self.setup.programs, self.setup.preprocessing)
        means, _, n = run_eval(
            self.exe,
            self.setup.programs.test,
            self.setup.eval_data,
            self.eval_names,
            self.eval_vars,
            False,
            predictions,
        )
        prediction = predictions.report()  # in the outputs' units, as eval.json's (the same pass)
        row = {**means, **{k: v for k, v in predictions.metrics(prediction).items() if k not in means}}
        self.out.metrics.write(
            {"phase": "eval", "step": self.step, "epoch": at_epoch, **row, "wall_s": time.monotonic() - self.wall0}
        )
        self.out.progress.report("eval", self.step, at_epoch, row)
        self.last_eval, self.eval_epoch = self.step, at_epoch
        self.result.eval, self.result.eval_samples, self.result.prediction = means, n, prediction
        evaluation = {"epoch": at_epoch, "samples": n, "metrics": means, "prediction": brief(prediction)}
        self._watch(row, position or (self.epoch, self.batch), evaluation)

    def _watch(self, means, position, evaluation):
        """keep_best: a better metric makes this step's checkpoint ckpt/best; early_stopping: too
        many evaluations without improvement end the run (saying why)."""
        if self.best is not None and self.best.update(means, self.step, evaluation):
            if self.last_saved != self.step:
                self._save(*position)
            self.out.checkpoints.mark_best(self.result.checkpoint)
        if self.early is not None:
            self.early.update(means, self.step)
            if self.early.exhausted:
                self.result.stopped_early = self.early.reason()  # pe train prints it with the result

    def _finish(self, stop):
        """The end of the run: the partial window, a last checkpoint, a last evaluation, eval.json."""
        result = self.result
        result.step, result.epoch = self.step, self.epoch
        if any(self.window.values()) and self.last_step is not None:
            self._report(*self.last_step)  # the last steps since a report: a row for the last step
        if self.last_saved != self.step:
            self._save(self.epoch, self.batch)
        if stop.now:
            result.interrupted = True
            return
        if self.setup.eval_data is None:
            return
        if self.last_eval != self.step:
            self._evaluate(self.epoch if self.batch == 0 else self.epoch + 1)
        summary = {
            "step": self.step,
            "samples": result.eval_samples,
            "checkpoint": result.checkpoint,
            "metrics": result.eval,
        }
        if result.prediction:
            summary["prediction"] = result.prediction
        result.reported = f"step {self.step}, epoch {self.eval_epoch}; the held-out numbers are its"
        if self.best is not None:
            self._report_best(summary)
        if result.stopped_early:
            summary["stopped_early"] = result.stopped_early
        atomic_write(os.path.join(result.run_dir, "eval.json"), json.dumps(summary, indent=1) + "\n")

    def _report_best(self, summary):
        """keep_best: eval.json's ``best`` (the metric, its value, step, epoch, checkpoint and that
        evaluation's numbers); pe train's summary reports the best checkpoint's evaluation, saying so."""
        result, watch = self.result, self.best
        best = self.out.checkpoints.pointed("best")
        summary["best"] = {"metric": watch.metric, "value": watch.best, "step": watch.best_step, "checkpoint": best}
        evaluation = watch.evaluation if best is not None else None
        if evaluation is not None:
            summary["best"].update(evaluation)
            result.eval, result.eval_samples = evaluation["metrics"], evaluation["samples"]
            result.prediction = evaluation["prediction"]
        if best is None or watch.best is None:
            return
        at = f"at step {watch.best_step}" + (f", epoch {evaluation['epoch']}" if evaluation else "")
        whose = "the held-out numbers are its" if evaluation else "the held-out numbers are the last checkpoint's"
        result.reported = f"step {self.step}, epoch {self.eval_epoch}"
        result.best = f"{best} ({watch.metric} {watch.best:.4f} {at}; --checkpoint {result.run_dir} means it; {whose})"


def _scheduled_lr(programs):
    """The optimizer's learning-rate variable when a schedule computes it at every step (it is not
    persistable, so the scope does not keep it after the step), else None."""
    optimizer = programs.optimizer
    if optimizer is None:
        return None
    var = optimizer._global_learning_rate(programs.main)
    if var.persistable:
        return None
    written = any(var.name in op.output_arg_names for block in programs.main.blocks for op in block.ops)
    return var if written else None  # pserver mode: the schedule runs on the servers
