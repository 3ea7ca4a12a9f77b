"""The ``pe`` command. A thin shell: it parses arguments, calls pe_cli.config / pe_cli.run, and
prints. Each command imports the engine's modules in its own body, so ``pe --help`` and ``pe CMD
--help`` load click alone (not even numpy); the engine loads no numba until a kernel first runs.
Errors are one line on stderr: ``file:line:col: key.path: what is wrong; what to do``, exit status
2 for a config error, 1 for a runtime error; ``--debug`` shows the traceback instead
(pe_cli/cli/errors.py).
"""

import os
import shlex
import sys

import click

from .errors import CONTEXT, EPILOG, PeGroup, _fail, debug_option, guarded
from .options import check_threads, dataset_option, dataset_override, threads_option, use_threads
from .reference import keys, layers
from .scripts import fluid, launch
from .serve import serve  # pe serve: pe_cli/cli/serve.py
from .tools import export, info, infer, plot, predict, summary
from .warning_kinds import collapse_warnings
from ..base.errors import UsageError
from ..distributed.rank_guard import guard, needs_guard


def _split_resume(resume, overrides):
    """``--resume`` takes an optional value; ``pe train c.yaml --resume lr=0.1`` means --resume last."""
    if resume is not None and resume != "last" and "=" in resume and not os.path.exists(resume):
        return "last", (resume,) + tuple(overrides)
    return resume, overrides


# -- the group -----------------------------------------------------------------------------------


@click.group(cls=PeGroup, context_settings=CONTEXT, epilog=EPILOG)
@click.version_option(package_name="pe-cli", prog_name="pe")
def main():
    """pe: train static-graph models described in YAML.

    A model file (models/*.yaml) declares feeds, layers, the loss and fetches; a run config
    (configs/*.yaml) names the model, the data, the optimizer, devices and outputs. Any config key
    can be overridden on the command line as key.path=value:

    \b
      pe train configs/mnist_lenet.yaml
      pe train configs/mnist_mlp.yaml optimizer.learning_rate=0.05 epochs=2
      pe train configs/mnist_mlp.yaml --print-config
      pe eval  configs/mnist_lenet.yaml --checkpoint runs/mnist_lenet/ckpt/last
      pe graph models/lenet.yaml --text
      pe smoke
    """
    from ..base.knobs import environment_problem  # here: `pe --help` loads no engine module

    problem = environment_problem()
    if problem:
        _fail(f"pe: error: {problem}", 2)
    collapse_warnings()


# -- train -----------------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("config", type=click.Path(dir_okay=False))
@click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="Run directory (default: output.dir, i.e. runs/<config name>). Never overwritten: "
    "when it exists, DIR-2, DIR-3, ... is made.",
)
@click.option(
    "--resume",
    is_flag=False,
    flag_value="last",
    default=None,
    metavar="[PATH|last]",
    help="Continue a run from its newest checkpoint: 'last' (the default value) picks the newest "
    "run of this config; PATH is a run directory or a ckpt/step-N directory.",
)
@click.option(
    "--max-steps",
    type=click.IntRange(min=1, max=10**12),
    metavar="N",
    help="Stop after N steps in all (overrides max_steps).",
)
@dataset_option
@click.option("--quiet", "-q", is_flag=True, help="No progress output; only the final summary.")
@click.option("--print-config", is_flag=True, help="Print the fully resolved config as YAML and exit.")
@click.option(
    "--check-nan-inf",
    is_flag=True,
    help="Check every op's float outputs and stop at the first NaN or Inf, naming the op, its layer "
    "and the model file's line (check_nan_inf: true; FLAGS_check_nan_inf=1).",
)
@click.option(
    "--np",
    "nprocs",
    type=click.IntRange(min=1),
    metavar="K",
    help="Train on K processes: runs mpiexec -n K for you (build_strategy.num_trainers=K; needs the mpi "
    "extra); in pserver mode (distributed.mode) mpiexec -n P+K with the P servers first.",
)
@threads_option
@debug_option
@guarded
def train(config, overrides, out, resume, max_steps, dataset, quiet, print_config, check_nan_inf, nprocs, threads):
    """Train the model of a run config.

    The model's summary table (as pe summary prints it) and the progress go to stderr: a bar with loss and throughput on a terminal, plain lines every
    fetch.every steps otherwise. The run directory gets config.yaml (resolved), model.yaml,
    metrics.csv and metrics.jsonl, fetches.npz, ckpt/step-N/ with ckpt/last, eval.json and the
    graph dumps listed in output.graphs. Ctrl-C stops after the current step and writes a
    checkpoint; --resume continues from it exactly.
    """
    if needs_guard():  # each rank runs under a guard: distributed/rank_guard.py
        sys.exit(guard("pe_cli", sys.argv[1:]))
    from ..config import load_config

    check_threads(threads)
    if dataset is not None:
        overrides = tuple(overrides) + (dataset_override(dataset),)
    if nprocs and nprocs > 1:
        from ..run.launch import run_ranks, train_argv, under_mpi

        if not under_mpi():
            sys.exit(run_ranks(nprocs + _pservers(config, overrides), train_argv(sys.argv[1:], nprocs)))
    resume, overrides = _split_resume(resume, overrides)
    if check_nan_inf:
        overrides = tuple(overrides) + ("check_nan_inf=true",)
    cfg = load_config(config, overrides)  # (the trainer loads after: a config error exits before)
    from ..run.trainer import resolved_config_text, resumed_config, train as run_train

    if print_config:
        if resume not in (None, "last") and not os.path.exists(resume):
            _fail(
                f"pe: error: --resume {resume}: no such run or checkpoint (--print-config prints the config "
                f"of a run that could start)",
                2,
            )
        click.echo(resolved_config_text(resumed_config(cfg, resume, out)), nl=False)
        return
    use_threads(threads, cfg)
    result = run_train(cfg, out=out, resume=resume, max_steps=max_steps, quiet=quiet)
    if result.rank or result.role != "trainer":  # several processes: trainer 0 reports
        return
    if result.nothing_to_do:
        click.echo(
            f"nothing to do: {result.run_dir} already finished at step {result.step} ({result.checkpoint}); "
            f"raise epochs or --max-steps to train further"
        )
        return
    _print_result(cfg, result)
    if result.stopped_early:
        click.echo(result.stopped_early)
    if result.interrupted:
        click.echo(
            f"interrupted at step {result.step}; checkpoint {result.checkpoint}\n"
            f"continue with: {shlex.join(['pe', 'train', config, *overrides, '--resume', str(result.run_dir)])}",
            err=True,
        )
        sys.exit(130)


def _pservers(config, overrides):
    """The parameter servers --np adds to the K trainers (distributed.mode: pserver), else 0."""
    from ..config import load_config

    d = load_config(config, overrides).data["distributed"]
    return d["pservers"] if d["mode"] == "pserver" else 0


def _print_result(cfg, result):
    branch = f" (a branch of {result.branch_of}: see its parent.json)" if result.branch_of else ""
    click.echo(f"run directory: {result.run_dir}{branch}")
    train_part = "  ".join(f"{k} {v:.4f}" for k, v in result.train.items())
    click.echo(f"trained {result.step} steps" + (f"; last train {train_part}" if train_part else ""))
    if result.eval:
        metrics = "  ".join(f"{k} {v:.4f}" for k, v in result.eval.items())
        rows = "data.split's eval part" if (cfg.data["data"]["split"] or {}).get("eval") else "data.eval"
        click.echo(f"held-out ({rows}, {result.eval_samples} samples): {metrics}")
        for value in _accuracies(cfg, result.eval, result.prediction):
            click.echo(f"held-out accuracy: {100 * value:.2f}%")
        for line in _regression(result.prediction):
            click.echo(f"held-out {line}")
    if result.checkpoint:
        reported = f" ({result.reported})" if result.reported else ""
        click.echo(f"checkpoint: {result.checkpoint}{reported}" + (f"; best: {result.best}" if result.best else ""))
    if result.curves:
        click.echo(f"curves: {result.curves}")


def _regression(prediction):
    """A regression's line (predmetrics.regression_line), or one line per output of a model with several."""
    from ..run.predmetrics import held_out_lines, regression_line

    return held_out_lines(prediction) or [line for line in [regression_line(prediction)] if line]


def _accuracies(cfg, metrics, prediction):
    """The fetches made by a metric layer (accuracy), printed again as a percentage; else the output
    layer's top-1 accuracy on data.eval (eval.json's prediction), for a classifier. None for a model
    with several outputs: each has its own line (_regression)."""
    from ..ops import registry

    if "outputs" in (prediction or {}):
        return []
    kinds = set(registry.with_trait("metric"))
    found = [v for name, v in metrics.items() if getattr(cfg.model.layer(name.split("[")[0]), "type", "") in kinds]
    return found or [v for v in [(prediction or {}).get("top1_accuracy")] if v is not None]


# -- eval ------------------------------------------------------------------------------------------


@main.command(name="eval", context_settings=CONTEXT, epilog=EPILOG)
@click.argument("config", type=click.Path(dir_okay=False))
@click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")
@click.option(
    "--checkpoint",
    "-c",
    required=True,
    metavar="PATH",
    help="ckpt/step-N, ckpt/last, ckpt/best or a run directory (its best checkpoint, else its newest).",
)
@click.option(
    "--out",
    "-o",
    metavar="FILE",
    help="Where to write the results (default: eval-step-N.json in the checkpoint's run directory, "
    "N its step; the run's own eval.json is never overwritten).",
)
@click.option(
    "--save-fetches",
    is_flag=True,
    help="Also write the raw fetched values of every batch, concatenated, to <out>-fetches.npz.",
)
@click.option(
    "--split",
    "part",
    type=click.Choice(["eval", "test"]),
    default="eval",
    show_default=True,
    help="data.eval (or data.split's eval part), or data.split's test part (the run's split.json rows).",
)
@threads_option
@debug_option
@guarded
def eval_(config, overrides, checkpoint, out, save_fetches, part, threads):
    """Evaluate a checkpoint on the config's data.eval (or a part of data.split: --split).

    Builds the test program (clone(for_test=True): dropout and batch_norm in inference mode), loads
    the checkpoint's parameters and reports each of eval.fetches averaged over those rows."""
    from ..config import load_config
    from ..run.evaluation import evaluate
    from ..run.output_paths import check_output

    check_output(out, "pe eval --out", "eval-result.json", inputs=[(config, "the config")])
    cfg = load_config(config, overrides)
    use_threads(threads, cfg)
    result = evaluate(cfg, checkpoint, out=out, save_fetches=save_fetches, part=part)
    click.echo(f"checkpoint: {result['checkpoint']} (step {result['step']})")
    click.echo(f"{result['part']}: {result['samples']} samples")
    for name, value in result["metrics"].items():
        click.echo(f"  {name}: {value:.6f}")
    for value in _accuracies(cfg, result["metrics"], result.get("prediction")):
        click.echo(f"accuracy: {100 * value:.2f}%")
    for line in _regression(result.get("prediction")):
        click.echo(line)
    click.echo(f"wrote {result['out']}" + (f" and {result['fetches']}" if result.get("fetches") else ""))


# -- graph -----------------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("file", type=click.Path())
@click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")
@click.option("--dot", "fmt", flag_value="dot", default=True, help="Graphviz DOT (the default).")
@click.option("--text", "fmt", flag_value="text", help="Readable text: feeds, parameters, one line per op.")
@click.option(
    "--phase",
    type=click.Choice(["forward", "train"]),
    default=None,
    help="forward (the default): the model's ops (the test program); train: with backward and optimizer ops.",
)
@click.option(
    "--level",
    type=click.Choice(["layer", "op"]),
    default=None,
    help="layer (the default for the forward DOT): one box per layer of the model file, shapes on "
    "the edges; op: every op and variable.",
)
@click.option("--ssa", is_flag=True, help="The multi-device graph the parallel executor runs (DOT).")
@click.option(
    "--devices",
    type=click.IntRange(min=1),
    metavar="N",
    help="Devices of the --ssa graph (default: the config's devices, or 2).",
)
@click.option(
    "--passes",
    "show_passes",
    is_flag=True,
    help="Print what each graph pass of the build strategy changes (text), in their fixed order.",
)
@click.option("-o", "--output", metavar="FILE", help="Write to FILE (default: stdout).")
@click.option(
    "--render",
    type=click.Choice(["svg", "png"]),
    help="Also draw the DOT into an .svg/.png image with graphviz's dot program (installed "
    "separately), beside the DOT file (-o FILE, default <model>-<phase>.dot).",
)
@debug_option
@guarded
def graph(file, overrides, fmt, phase, level, ssa, devices, show_passes, output, render):
    """Show the program of a run config, a model file, or a run directory or checkpoint (its record's).

    Ops are coloured by role (forward, backward, optimize, lr_sched) and carry the YAML line they
    were built from. --phase train needs the optimizer: a run config's, or SGD for a model file.
    """
    from ..run.graphcmd import graph_output, passes_output, write_rendered
    from ..base.atomic_file import atomic_write
    from ..run.output_paths import check_output

    check_output(output, "pe graph -o", "graph.dot", inputs=[(file, "the config or model file")])
    if show_passes:
        click.echo(passes_output(file, overrides, devices), nl=False)
        return
    if ssa and fmt == "text":
        raise UsageError("--ssa draws the multi-device graph as DOT only; drop --text")
    if ssa and phase is not None:
        raise UsageError(
            "--ssa always shows the training graph (forward, backward, optimizer and the nodes "
            "between devices); drop --phase"
        )
    if level == "layer" and (ssa or fmt == "text" or phase == "train"):
        raise UsageError(
            "--level layer draws the model file's layers (the forward phase, as DOT); "
            "use --level op with --ssa, --text or --phase train"
        )
    if level is None:
        level = "layer" if not ssa and fmt == "dot" and phase in (None, "forward") else "op"
    text, default_name = graph_output(file, overrides, fmt, phase or "forward", ssa, devices, level)
    if render:
        ok, message = write_rendered(file, output, default_name, text, render)
        click.echo(message, err=not ok)
        if not ok:
            sys.exit(1)
        return
    if not output:
        click.echo(text, nl=False)
        return
    atomic_write(output, text)
    click.echo(f"wrote {output}", err=True)


# -- smoke -----------------------------------------------------------------------------------------


@main.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("configs", nargs=-1, type=click.Path(dir_okay=False), metavar="[CONFIG]...")
@click.option("--steps", type=click.IntRange(min=4), default=20, show_default=True, help="Steps per config.")
@click.option(
    "--samples",
    type=click.IntRange(min=1),
    default=512,
    show_default=True,
    help="Training samples per config (the first N of data.train).",
)
@click.option("--keep", is_flag=True, help="Keep the run directories (in a temporary folder, printed).")
@threads_option
@debug_option
@guarded
def smoke(configs, steps, samples, keep, threads):
    """Check that configs build and learn: each runs a few steps on a small slice of its data.

    Passes when the config is valid, the programs build, every loss is finite and the loss falls
    (the mean of the last steps is below that of the first). Prints a table; exits 1 when any
    config fails. With no CONFIG, every configs/*.yaml is checked. A config's data.eval (its
    first --samples too) is evaluated once at the end, so eval.fetches, checkpoint.keep_best and
    early_stopping are checked as well.
    """
    from ..run.smoke import run_smoke

    use_threads(threads)
    rows, ok = run_smoke(list(configs), steps=steps, samples=samples, keep=keep, echo=click.echo)
    if not ok:
        sys.exit(1)


# beside training: pe_cli/cli/tools.py and serve.py; Fluid scripts: scripts.py; the reference: reference.py
for _command in (summary, predict, infer, plot, export, info, serve, fluid, launch, layers, keys):
    main.add_command(_command)


if __name__ == "__main__":
    main()
