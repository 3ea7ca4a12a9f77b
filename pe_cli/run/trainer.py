"""Training, reachable from Python as from ``pe train``:

    from pe_cli.config import load_config
    from pe_cli.run.trainer import train
    result = train(load_config("configs/mnist_lenet.yaml"), max_steps=100)
    result.run_dir, result.eval      # 'runs/mnist_lenet', {'loss': ..., 'acc': ...}

Everything that can be wrong with a config is found before the run directory is made: the data is
loaded and conformed, the programs are built, the checkpoint to resume from is found and the place
is checked (``_prepare``). Then the run directory gets the resolved config, the model and the graph
dumps, and run.loop.TrainLoop trains.
"""

import json
import os
import shutil

import yaml

from ..base.errors import PeError, UsageError
from ..executor import Executor, Scope, scope_guard
from .build import build_programs, load_data
from .distributed import pserver_transpile, serve, trainers
from .divergence import non_finite
from .watch import check_watches
from .graph import program_dot, program_text, ssa_dot
from .async_epoch import check_async
from .checkpoint_check import checked_checkpoint
from .loggers import Loggers, check_loggers, logger_names
from .loop import Outputs, Setup, StopFlag, TrainLoop, TrainResult  # noqa: F401 -- TrainResult: public here
from .output_paths import check_run_out
from .plot import check_curves, plot_at_end
from .predmetrics import unit_metric_names
from ..data.missing import note as tell
from .data_notes import label_leaks, tell_fills
from .preprocessing import fill_data_sizes, fit_preprocessing, save_preprocessing, saved_preprocessing
from .split import Rows, has_part, save_split
from .placement import in_run_dir, make_place, train_program
from .progress import Progress
from .resume_checks import check_finished, latest_run, resume_lock
from .resume_state import batch_in_epoch, check_same_preprocessing, load_resumed
from .run_overrides import recorded_overrides, with_recorded_overrides, write_overrides
from .summary import summary_table
from .run_metrics import FetchStore, Metrics
from .rundir import Checkpoints, RunLock, atomic_write, is_newest, new_run_dir, read_state, start_branch


def train(cfg, out=None, resume=None, max_steps=None, quiet=False, stream=None):
    """Trains as the config says. ``out``: the run directory (default: output.dir; a new numbered
    one when it exists); ``resume``: 'last' or a run or checkpoint directory; ``max_steps``
    overrides the config's. Resuming a run's newest checkpoint continues the run in its directory;
    resuming an older one starts a branch beside it (``start_branch``), so nothing the run wrote
    after that checkpoint is lost. Returns a TrainResult."""
    with resume_lock(cfg, resume, out):  # the run's lock before anything of it is read
        cfg = resumed_config(cfg, resume, out)
        setup = _prepare(cfg, resume, max_steps, out)
        try:
            if setup.trainers.server is not None:  # pserver mode: this process is a parameter server
                with scope_guard(Scope()):
                    serve(setup.trainers.plan, setup.trainers, Executor(setup.place))
                return TrainResult(None, 0, 0, rank=setup.trainers.rank, role="pserver")
            return _train(cfg, setup, out, max_steps, quiet or not setup.trainers.writes, stream)
        except Exception as e:
            setup.trainers.abort(e)  # several trainers: the others would wait for this one
            raise
        finally:
            setup.trainers.cleanup()


def _train(cfg, setup, out, max_steps, quiet, stream):
    state = {"step": 0, "epoch": 0, "batch": 0, "wall_s": 0.0, "samples": 0}
    if setup.ckpt is not None:
        state.update(read_state(setup.ckpt))
        state["batch"] = batch_in_epoch(state, setup.train_data.batch_size, setup.ckpt)
        if max_steps is not None and max_steps < state["step"]:
            raise UsageError(
                f"--max-steps {max_steps} is below the step of the checkpoint resumed from "
                f"({state['step']}); give a larger --max-steps, or resume an earlier checkpoint"
            )
    max_steps = max_steps if max_steps is not None else cfg.data["max_steps"]
    if setup.ckpt is not None and _finished(cfg, state, max_steps):
        check_finished(cfg, setup)  # this config's run's checkpoint, before "nothing to do"
        return TrainResult(
            setup.run_dir,
            state["step"],
            state["epoch"],
            resumed_from=setup.ckpt,
            checkpoint=setup.ckpt,
            nothing_to_do=True,
        )
    # Initialize (and load the checkpoint) before touching any directory: a failure here leaves
    # no half-made run behind.
    scope = Scope()
    exe = Executor(setup.place)
    with scope_guard(scope):
        exe.run(setup.programs.startup)
        if setup.ckpt is not None:
            given = [a for a in cfg.overrides if a not in recorded_overrides(setup.run_dir)]
            setup.notes = load_resumed(setup.ckpt, setup.programs, given)  # the overrides apply
            bad = non_finite([v.name for v in setup.programs.main.list_vars() if v.persistable])
            if bad:
                raise PeError(
                    f"{setup.ckpt} holds NaN or Inf in {', '.join(bad[:3])}: resume from an earlier "
                    f"checkpoint (ckpt/step-N)"
                )
    run_dir = _run_dir(cfg, setup, out, state)
    fresh = run_dir != setup.run_dir
    with RunLock(run_dir):
        try:
            return _train_in(cfg, setup, run_dir, exe, scope, state, max_steps, quiet, stream)
        except PeError:
            if fresh and _nothing_recorded(run_dir):
                shutil.rmtree(run_dir, ignore_errors=True)  # failed in its first steps: leave nothing
            raise


def _finished(cfg, state, max_steps):
    """The checkpoint is the end of the run this config asks for: resuming it would train nothing."""
    if max_steps is not None and state["step"] >= max_steps:
        return True
    return state["epoch"] >= cfg.data["epochs"]


def _nothing_recorded(run_dir):
    """No checkpoint and no metrics row yet: the run failed before it produced anything."""
    metrics = os.path.join(run_dir, "metrics.jsonl")
    return not os.path.isdir(os.path.join(run_dir, "ckpt")) and (
        not os.path.exists(metrics) or os.path.getsize(metrics) == 0
    )


def _run_dir(cfg, setup, out, state):
    if not setup.trainers.writes:
        return setup.trainers.scratch()  # rank 0 alone writes the run directory
    if setup.ckpt is None:
        return new_run_dir(out or cfg.data["output"]["dir"])
    if is_newest(setup.ckpt, setup.run_dir):
        return setup.run_dir
    return start_branch(setup.run_dir, setup.ckpt, state["step"])


def _train_in(cfg, setup, run_dir, exe, scope, state, max_steps, quiet, stream):
    resuming = setup.ckpt is not None
    in_run_dir(setup.program, run_dir)
    progress = Progress(_total_steps(cfg, setup.train_data, max_steps), quiet, stream)
    checkpoints = Checkpoints(run_dir, cfg.data["checkpoint"]["keep"])
    for path in checkpoints.remove_interrupted():
        progress.message(f"removed {path}, left by a save that was interrupted")
    _write_run_files(cfg, setup, run_dir, state, progress)
    progress.message(summary_table(cfg.model, setup.programs).rstrip("\n"))
    since = state["step"] if resuming else None
    units = list(unit_metric_names(cfg)) if setup.eval_data is not None else []  # each evaluation's
    metrics = Metrics(run_dir, _union(_union(cfg.train_fetches, cfg.eval_fetches), units), since)
    outputs = Outputs(
        Loggers(metrics, run_dir, logger_names(cfg)),
        FetchStore(run_dir, cfg.data["fetch"]["save"], since),
        checkpoints,
        progress,
    )
    result = TrainResult(
        run_dir,
        state["step"],
        state["epoch"],
        resumed_from=setup.ckpt,
        branch_of=setup.run_dir if resuming and run_dir != setup.run_dir else None,
        rank=setup.trainers.rank,
    )
    with scope_guard(scope), StopFlag() as stop:
        try:
            TrainLoop(cfg, exe, setup, outputs, result).run(state, max_steps, stop)
        finally:
            progress.end()
            outputs.metrics.close()
            outputs.store.flush()
    if cfg.data["output"]["curves"] and not _nothing_recorded(run_dir):
        result.curves = plot_at_end(run_dir)
    return result


def _prepare(cfg, resume, max_steps, out=None):
    """Everything that can fail before the run directory exists: the model builds, the loss is
    trainable, the data loads and fits the feeds, the place exists, the checkpoint is found."""
    check_run_out(out or cfg.data["output"]["dir"], "pe train --out" if out else "output.dir")
    for line in label_leaks(cfg):
        tell(f"warning: {line}")
    processes = trainers(cfg)  # first: a wrong launch fails before anything is built
    if processes.pserver_mode and resume is not None:
        raise cfg.doc.error(
            ("distributed", "mode"),
            "pserver mode cannot resume: the optimizer state lives on the servers, not in the trainers' checkpoints",
            "resume in collective mode",
        )
    if cfg.model.loss is None:
        raise cfg.model.doc.error(
            (), "the model has no loss, so it cannot be trained", "add 'loss: <layer name>' to the model file"
        )
    ckpt = run_dir = None
    if resume not in (None, "last") and out is not None:
        raise UsageError(
            f"--out {out} cannot be used with --resume {resume}: a resumed run continues in its "
            f"own directory (or in a branch beside it when resuming an older checkpoint); drop --out"
        )
    if resume is not None:
        ckpt, run_dir = _find_resume(cfg, resume, out)
    if ckpt is not None:
        check_same_preprocessing(cfg, run_dir)
    # The preprocessing is fitted on data.train (or its train part) only; a resumed run keeps the one
    # it saved. The sizes it decides (auto) are filled before the build; the model is built before the
    # data is read wherever the data decides no size, so a model's mistake is told before a data one.
    fitted = cfg.data["data"]["preprocessing"] and ckpt is None
    if not fitted:
        prep = saved_preprocessing(cfg, run_dir) if ckpt is not None else None
        programs = _built(cfg, prep)
    rows = Rows(cfg, run_dir if ckpt is not None else None)  # data.split: the run's rows when resuming
    train_raw = rows.columns("train")
    if fitted:
        prep = fit_preprocessing(cfg, train_raw, rows.describe("train"))
        programs = _built(cfg, prep)
    if processes.pserver_mode:
        processes.plan = pserver_transpile(cfg, programs, processes)
    train_data = load_data(cfg, "train", prep, train_raw)
    eval_raw = rows.columns("eval") if has_part(cfg, "eval") else None
    eval_data = load_data(cfg, "eval", prep, eval_raw) if eval_raw is not None else None
    place = make_place(cfg)
    program = train_program(cfg, programs, place, processes.rank)
    check_watches(cfg)
    check_loggers(cfg)
    check_curves(cfg)
    check_async(cfg)
    if max_steps is not None and max_steps < 1:
        raise PeError(f"--max-steps must be >= 1, got {max_steps}")
    for part, raw in (("train", train_raw), ("eval", eval_raw or {})):
        tell_fills(prep, raw, rows.describe(part))  # the values preprocessing filled, counted per column
    return Setup(programs, program, place, train_data, eval_data, ckpt, run_dir, processes, prep, split=rows.split)


def _built(cfg, prep):
    fill_data_sizes(cfg, prep)
    return build_programs(cfg.model, cfg)


def resumed_config(cfg, resume, out=None):
    """The config a resume continues with: ``cfg`` with the run's recorded command-line overrides
    under its own (run.run_overrides); ``cfg`` itself when not resuming."""
    if resume is None:
        return cfg
    return with_recorded_overrides(cfg, _find_resume(cfg, resume, out)[1])


def _find_resume(cfg, resume, out=None):
    if resume == "last":
        latest = latest_run(cfg, out)
        if latest is None:
            raise PeError(
                f"--resume last: no run of {out or cfg.data['output']['dir']} has a checkpoint; start "
                f"one without --resume"
            )
        return checked_checkpoint(Checkpoints(latest).last())
    return checked_checkpoint(resume)


def _write_run_files(cfg, setup, run_dir, state, progress):
    """The resolved config and model (or, when resuming, the config this part ran with) and the
    graph dumps of output.graphs."""
    if setup.ckpt is not None and run_dir != setup.run_dir:  # a branch (start_branch)
        progress.message(
            f"resuming {setup.run_dir} from {setup.ckpt} (step {state['step']}), an older checkpoint "
            f"than its newest: continuing in the branch {run_dir} (parent.json), {setup.run_dir} "
            f"is left as it is"
        )
        atomic_write(os.path.join(run_dir, "config.yaml"), resolved_config_text(cfg, run_dir))
        atomic_write(os.path.join(run_dir, "model.yaml"), model_text(cfg))  # the model it runs
        save_preprocessing(setup.preprocessing, run_dir)
        save_split(setup.split, run_dir)
    elif setup.ckpt is not None:
        progress.message(f"resuming {run_dir} from {setup.ckpt} (step {state['step']})")
        atomic_write(
            os.path.join(run_dir, f"config.resumed-step-{state['step']}.yaml"),
            resolved_config_text(cfg, run_dir, _resumed_model(cfg, run_dir, state["step"])),
        )
    else:
        atomic_write(os.path.join(run_dir, "config.yaml"), resolved_config_text(cfg, run_dir))
        atomic_write(os.path.join(run_dir, "model.yaml"), model_text(cfg))
        save_preprocessing(setup.preprocessing, run_dir)
        save_split(setup.split, run_dir)
    for note in setup.notes:
        progress.message(note)
    write_overrides(run_dir, cfg.overrides)
    write_graphs(cfg, setup.programs, run_dir)


def model_text(cfg):
    """The resolved model file (includes expanded) as YAML, as a run directory keeps it."""
    return yaml.safe_dump(cfg.model.to_data(), sort_keys=False, default_flow_style=None)


def _resumed_model(cfg, run_dir, step):
    """The model file a resume's config record names: model.yaml when the model is the run's,
    else ``model.resumed-step-N.yaml``, written here (an override of the model that applies)."""
    text = model_text(cfg)
    try:
        with open(os.path.join(run_dir, "model.yaml"), encoding="utf-8") as f:
            if f.read() == text:
                return "model.yaml"
    except OSError:
        pass
    name = f"model.resumed-step-{step}.yaml"
    atomic_write(os.path.join(run_dir, name), text)
    return name


def write_graphs(cfg, programs, run_dir, compiled=None):
    kinds = {"forward": programs.test, "test": programs.test, "train": programs.main, "startup": programs.startup}
    for kind in cfg.data["output"]["graphs"]:
        if kind == "ssa":
            write_ssa_graph(cfg, programs, os.path.join(run_dir, "graph-ssa.dot"))
            continue
        title = f"{cfg.model.name} ({kind})"
        atomic_write(os.path.join(run_dir, f"graph-{kind}.dot"), program_dot(kinds[kind], title))
        atomic_write(os.path.join(run_dir, f"graph-{kind}.txt"), program_text(kinds[kind], title))


def write_ssa_graph(cfg, programs, path, devices=None):
    devices = devices or cfg.data["devices"]
    atomic_write(path, ssa_dot(programs, devices, cfg))


def resolved_config_text(cfg, run_dir=None, model_file="model.yaml"):
    """The resolved run config as YAML. For a run directory, its paths are made relative to it
    and the model points at the copy beside it (``model_file``), so ``pe eval <run dir>/config.yaml``
    works."""
    data = json.loads(json.dumps(cfg.data))
    if run_dir is not None:

        def rel(p):
            return os.path.relpath(os.path.abspath(p), os.path.abspath(run_dir)) if p else p

        data["model"] = model_file
        for which in ("train", "eval"):
            src = data["data"][which]
            if src:
                src["path"] = rel(src["path"])
                src["files"] = {k: rel(v) for k, v in src["files"].items()}
    header = f"# resolved by pe from {cfg.path}\n"
    return header + yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


def _union(a, b):
    return list(a) + [n for n in b if n not in a]


def _total_steps(cfg, data, max_steps):
    total = len(data) * cfg.data["epochs"]
    return min(total, max_steps) if max_steps else total
