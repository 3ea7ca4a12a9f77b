"""Training, evaluation and their outputs, reachable from Python as from ``pe train`` / ``pe eval``:

    from pe_cli.config import load_config
    from pe_cli.run.trainer import train
    result = train(load_config("configs/mnist_lenet.yaml"), max_steps=100)
    result.run_dir, result.eval      # 'runs/mnist_lenet', {'loss': ..., 'acc': ...}

Everything that can be wrong with a config is found before the run directory is made: the data is
loaded and conformed, the programs are built, the checkpoint to resume from is found and the place
is checked. Then the loop runs: seeded per-epoch order, fetches every step, a report every
``fetch.every`` steps, evaluation and checkpoints on schedule, and a checkpoint when Ctrl-C stops it.
"""
import json
import os
import signal
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import yaml

from ..errors import PeError
from .programs import build_programs
from .rundir import Checkpoints, FetchStore, Metrics, atomic_write, new_run_dir, read_state, resolve_checkpoint, runs_of
from .progress import Progress


@dataclass
class TrainResult:
    run_dir: str
    step: int
    epoch: int
    train: dict = field(default_factory=dict)     # last reported training metrics
    eval: dict = field(default_factory=dict)      # final evaluation on data.eval
    eval_samples: int = 0
    checkpoint: str = None
    interrupted: bool = False
    resumed_from: str = None
    history: list = field(default_factory=list)  # (step, loss) of every step of this process


# -- places and executors -------------------------------------------------------------------------

def make_place(cfg):
    from ..places import CPUPlace, CUDAPlace, is_compiled_with_cuda
    if cfg.data["place"] == "cuda":
        if not is_compiled_with_cuda():
            reason = ""
            try:
                from ..kernels.cuda import runtime
                reason = f" ({runtime.unavailable_reason()})" if runtime.unavailable_reason() else ""
            except Exception:   # noqa: BLE001 -- the reason is a courtesy
                pass
            raise cfg.doc.error(("place",), f"no CUDA GPU is usable here{reason}",
                                "use place: cpu, or install pe with the [cuda] extra on a machine with a GPU")
        return CUDAPlace(0)
    return CPUPlace()


def _strategies(cfg):
    from ..compiler.strategy import BuildStrategy, ExecutionStrategy
    out = []
    for key, cls in (("build_strategy", BuildStrategy), ("exec_strategy", ExecutionStrategy)):
        strategy = cls()
        defaults = cls().to_dict()
        for name, value in cfg.data[key].items():
            if value != defaults.get(name):
                try:
                    setattr(strategy, name, value)
                except (PeError, TypeError, ValueError, AttributeError) as e:
                    raise cfg.doc.error((key, name), str(e)) from None
        out.append(strategy)
    return out


def _non_default_strategies(cfg):
    from ..compiler.strategy import BuildStrategy, ExecutionStrategy
    for key, cls in (("build_strategy", BuildStrategy), ("exec_strategy", ExecutionStrategy)):
        defaults = cls().to_dict()
        if any(v != defaults.get(k) for k, v in cfg.data[key].items()):
            return True
    return False


def train_program(cfg, programs, place):
    """The program to run for training: the main program, or a CompiledProgram with data
    parallelism over ``devices`` places when more than one device (or a strategy) is asked for."""
    devices = cfg.data["devices"]
    if devices == 1 and not _non_default_strategies(cfg):
        return programs.main
    try:
        from ..compiler import CompiledProgram
    except ImportError:
        raise cfg.doc.error(("devices",), f"devices: {devices} and build/exec strategies need the parallel "
                            "executor (pe_cli.compiler.CompiledProgram), which this build does not have yet",
                            "use devices: 1 and default strategies") from None
    from ..places import CPUPlace, CUDAPlace
    places = [CUDAPlace(i) if place.kind == "cuda" else CPUPlace(i) for i in range(devices)]
    build_strategy, exec_strategy = _strategies(cfg)
    try:
        return CompiledProgram(programs.main).with_data_parallel(
            loss_name=programs.model.loss.name, build_strategy=build_strategy, exec_strategy=exec_strategy,
            places=places)
    except (PeError, TypeError, ValueError) as e:
        raise cfg.doc.error(("devices",), f"cannot run on {devices} devices: {e}") from None


# -- evaluation -------------------------------------------------------------------------------------

def run_eval(exe, program, batcher, fetch_names, fetch_vars, keep_raw=False):
    """Each fetch averaged over ``batcher`` (weighted by batch size); with ``keep_raw`` also the
    fetched values of every batch, concatenated. Returns (means, raw, samples)."""
    sums = {n: 0.0 for n in fetch_names}
    raw = {n: [] for n in fetch_names}
    samples = 0
    for _, batch in batcher.epoch(0):
        n = len(next(iter(batch.values())))
        values = exe.run(program, feed=batch, fetch_list=fetch_vars)
        for name, value in zip(fetch_names, values):
            sums[name] += float(np.mean(value)) * n
            if keep_raw:
                raw[name].append(np.asarray(value))
        samples += n
    means = {n: sums[n] / samples for n in fetch_names}
    if keep_raw:
        raw = {n: _concat(v) for n, v in raw.items()}
    return means, raw, samples


def _concat(arrays):
    if all(a.ndim >= 1 for a in arrays) and len({a.shape[1:] for a in arrays}) == 1:
        return np.concatenate(arrays)
    return np.stack(arrays)


# -- training -----------------------------------------------------------------------------------------

class _StopFlag:
    """Ctrl-C during training asks for a clean stop (checkpoint, then exit); a second one aborts."""

    def __init__(self):
        self.requested = False
        self._old = None

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


def _prepare(cfg, resume, max_steps, out=None):
    """Everything that can fail before the run directory exists: the model builds, the loss is
    trainable, the data loads and fits the feeds, the place exists, the checkpoint is found."""
    programs = build_programs(cfg.model, cfg)
    if cfg.model.loss is None:
        raise cfg.model.doc.error((), "the model has no loss, so it cannot be trained",
                                  "add 'loss: <layer name>' to the model file")
    train_data = cfg.load_data("train")
    eval_data = cfg.load_data("eval") if cfg.data["data"]["eval"] is not None else None
    place = make_place(cfg)
    program = train_program(cfg, programs, place)
    ckpt = run_dir = None
    if resume is not None:
        ckpt, run_dir = _find_resume(cfg, resume, out)
    if max_steps is not None and max_steps < 1:
        raise PeError(f"--max-steps must be >= 1, got {max_steps}")
    return train_data, eval_data, place, programs, program, ckpt, run_dir


def _find_resume(cfg, resume, out=None):
    if resume == "last":
        wanted = out or cfg.data["output"]["dir"]
        candidates = [r for r in runs_of(wanted) if Checkpoints(r).last()]
        if not candidates:
            raise PeError(f"--resume last: no run of {wanted} has a checkpoint; start one without --resume")
        latest = max(candidates, key=lambda r: os.path.getmtime(Checkpoints(r).last()))
        return Checkpoints(latest).last(), latest
    return resolve_checkpoint(resume)


def write_graphs(cfg, programs, run_dir, compiled=None):
    from .graph import program_dot, program_text
    kinds = {"forward": programs.test, "test": programs.test, "train": programs.main, "startup": programs.startup}
    for kind in cfg.data["output"]["graphs"]:
        if kind == "ssa":
            write_ssa_graph(cfg, programs, os.path.join(run_dir, "graph-ssa.dot"))
            continue
        title = f"{cfg.model.name} ({kind})"
        with open(os.path.join(run_dir, f"graph-{kind}.dot"), "w") as f:
            f.write(program_dot(kinds[kind], title))
        with open(os.path.join(run_dir, f"graph-{kind}.txt"), "w") as f:
            f.write(program_text(kinds[kind], title))


def write_ssa_graph(cfg, programs, path, devices=None):
    from .graph import ssa_dot
    devices = devices or cfg.data["devices"]
    with open(path, "w") as f:
        f.write(ssa_dot(programs, devices, cfg))


def resolved_config_text(cfg, run_dir=None):
    """The resolved run config as YAML. For a run directory, its paths are made relative to it
    and the model points at the copy beside it, so ``pe eval <run dir>/config.yaml`` works."""
    data = json.loads(json.dumps(cfg.data))
    if run_dir is not None:
        rel = lambda p: os.path.relpath(os.path.abspath(p), os.path.abspath(run_dir)) if p else p
        data["model"] = "model.yaml"
        for which in ("train", "eval"):
            src = data["data"][which]
            if src:
                src["path"] = rel(src["path"])
                src["files"] = {k: rel(v) for k, v in src["files"].items()}
    header = f"# resolved by pe from {cfg.path}\n"
    return header + yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


def train(cfg, out=None, resume=None, max_steps=None, quiet=False, stream=None):
    """Trains as the config says. ``out``: the run directory (default: output.dir; a new numbered
    one when it exists); ``resume``: 'last' or a run or checkpoint directory; ``max_steps``
    overrides the config's. Returns a TrainResult."""
    from ..executor import Executor, Scope, scope_guard
    from ..io import load_persistables
    train_data, eval_data, place, programs, program, ckpt, resume_dir = _prepare(cfg, resume, max_steps, out)
    max_steps = max_steps if max_steps is not None else cfg.data["max_steps"]
    state = {"step": 0, "epoch": 0, "batch": 0, "wall_s": 0.0, "samples": 0}
    if ckpt is not None:
        state.update(read_state(ckpt))
    # Initialize (and load the checkpoint) before touching any directory: a failure here leaves
    # no half-made run behind.
    scope = Scope()
    exe = Executor(place)
    with scope_guard(scope):
        exe.run(programs.startup)
        if ckpt is not None:
            load_persistables(exe, ckpt, programs.main)
    run_dir = resume_dir if ckpt is not None else new_run_dir(out or cfg.data["output"]["dir"])
    progress = Progress(_total_steps(cfg, train_data, max_steps), quiet, stream)
    if ckpt is not None:
        progress.message(f"resuming {run_dir} from {ckpt} (step {state['step']})")
        atomic_write(os.path.join(run_dir, f"config.resumed-step-{state['step']}.yaml"),
                     resolved_config_text(cfg, run_dir))
    else:
        atomic_write(os.path.join(run_dir, "config.yaml"), resolved_config_text(cfg, run_dir))
        atomic_write(os.path.join(run_dir, "model.yaml"),
                     yaml.safe_dump(cfg.model.to_data(), sort_keys=False, default_flow_style=None))
    write_graphs(cfg, programs, run_dir)

    fetch_names = cfg.train_fetches
    eval_names = cfg.eval_fetches
    metrics = Metrics(run_dir, _union(fetch_names, eval_names), state["step"] if ckpt else None)
    store = FetchStore(run_dir, cfg.data["fetch"]["save"], state["step"] if ckpt else None)
    checkpoints = Checkpoints(run_dir, cfg.data["checkpoint"]["keep"])
    result = TrainResult(run_dir, state["step"], state["epoch"], resumed_from=ckpt)
    with scope_guard(scope), _StopFlag() as stop:
        try:
            _loop(cfg, exe, program, programs, train_data, eval_data, state, max_steps, fetch_names, eval_names,
                  metrics, store, checkpoints, progress, stop, result)
        finally:
            progress.end()
            metrics.close()
            store.flush()
    return result


def _union(a, b):
    return list(a) + [n for n in b if n not in a]


def _total_steps(cfg, data, max_steps):
    total = len(data) * cfg.data["epochs"]
    return min(total, max_steps) if max_steps else total


def _loop(cfg, exe, program, programs, train_data, eval_data, state, max_steps, fetch_names, eval_names,
          metrics, store, checkpoints, progress, stop, result):
    every = cfg.data["fetch"]["every"]
    ck = cfg.data["checkpoint"]
    epochs = cfg.data["epochs"]
    loss_name = cfg.model.loss
    run_names = list(fetch_names) + ([loss_name] if loss_name not in fetch_names else [])
    fetch_vars = programs.fetch_vars(run_names)
    eval_vars = [v.name for v in programs.fetch_vars(eval_names)]
    wall0 = time.monotonic() - state["wall_s"]
    window = {n: [] for n in fetch_names}
    window_samples, window_t0 = 0, time.monotonic()
    last_saved = last_eval = None
    step, epoch, start_batch = state["step"], state["epoch"], state["batch"]

    def snapshot(next_epoch, next_batch):
        return {"step": step, "epoch": next_epoch, "batch": next_batch, "wall_s": time.monotonic() - wall0,
                "samples": state["samples"], "config": cfg.path, "model": cfg.model.name}

    def save(next_epoch, next_batch):
        nonlocal last_saved
        path = checkpoints.save(exe, programs.main, snapshot(next_epoch, next_batch))
        store.flush()
        last_saved = step
        result.checkpoint = path
        return path

    def evaluate(at_epoch):
        """``at_epoch``: the 1-based epoch the evaluation follows."""
        nonlocal last_eval
        means, _, n = run_eval(exe, programs.test, eval_data, eval_names, eval_vars)
        row = {"phase": "eval", "step": step, "epoch": at_epoch, **means, "wall_s": time.monotonic() - wall0}
        metrics.write(row)
        progress.report("eval", step, at_epoch, means)
        last_eval = step
        result.eval, result.eval_samples = means, n
        return means

    done = max_steps is not None and step >= max_steps
    while epoch < epochs and not done:
        for b, batch in train_data.epoch(epoch, start_batch):
            n = len(next(iter(batch.values())))
            values = exe.run(program, feed=batch, fetch_list=fetch_vars)
            step += 1
            state["samples"] += n
            window_samples += n
            fetched = dict(zip(run_names, values))
            loss_value = float(np.mean(fetched[loss_name]))
            result.history.append((step, loss_value))
            if not np.isfinite(loss_value):
                raise PeError(f"step {step}: the loss '{loss_name}' is {loss_value}; lower "
                              f"optimizer.learning_rate or check the data's transforms")
            for name in fetch_names:
                window[name].append(float(np.mean(fetched[name])))
            now = time.monotonic()
            speed = window_samples / max(now - window_t0, 1e-9)
            progress.update(step, epoch + 1, {k: v[-1] for k, v in window.items()}, speed)
            next_epoch, next_batch = (epoch, b + 1) if b + 1 < len(train_data) else (epoch + 1, 0)
            if step % every == 0:
                means = {k: float(np.mean(v)) for k, v in window.items()}
                metrics.write({"phase": "train", "step": step, "epoch": epoch + 1, **means,
                               "samples_per_s": speed, "wall_s": now - wall0})
                store.add(step, {name: fetched[name] for name in fetch_names})
                progress.report("train", step, epoch + 1, means, speed)
                result.train = means
                window = {k: [] for k in window}
                window_samples, window_t0 = 0, time.monotonic()
            if ck["every_steps"] and step % ck["every_steps"] == 0:
                save(next_epoch, next_batch)
            if max_steps is not None and step >= max_steps:
                done = True
            if stop.requested or done:
                break
        else:
            epoch += 1
            start_batch = 0
            if eval_data is not None and cfg.data["eval"]["every_epochs"] and \
                    epoch % cfg.data["eval"]["every_epochs"] == 0 and epoch < epochs:
                evaluate(epoch)
            if ck["every_epochs"] and epoch % ck["every_epochs"] == 0 and last_saved != step:
                save(epoch, 0)
            if stop.requested:
                break
            continue
        # left the epoch early: Ctrl-C or max_steps
        epoch, start_batch = next_epoch, next_batch
        break
    result.step, result.epoch = step, epoch
    if any(window.values()):
        result.train = {k: float(np.mean(v)) for k, v in window.items() if v}
    if last_saved != step:
        save(epoch, start_batch)
    if stop.requested:
        result.interrupted = True
        return
    if eval_data is not None and last_eval != step:
        evaluate(epoch if start_batch == 0 else epoch + 1)
    if eval_data is not None:
        atomic_write(os.path.join(result.run_dir, "eval.json"),
                     json.dumps({"step": step, "samples": result.eval_samples, "checkpoint": result.checkpoint,
                                 "metrics": result.eval}, indent=1) + "\n")

