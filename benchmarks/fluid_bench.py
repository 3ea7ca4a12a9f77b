"""pe against Fluid 1.8.5 on the workloads Fluid users bring: one Fluid program, both engines, same batches.

    PE_FLUID_PYTHON=/path/to/py38-venv/bin/python make bench        # the optional step of `make bench`
    python benchmarks/fluid_bench.py --fluid-python /path/to/py38-venv/bin/python [--reps 3] [--quiet-only]

Fluid 1.8.5 is a benchmark-only yardstick: a Python 3.8 virtual environment with ``paddlepaddle==1.8.5``
(``python3.8 -m venv v && v/bin/pip install paddlepaddle==1.8.5 numpy==1.23.5``), given by
``--fluid-python`` or the environment variable PE_FLUID_PYTHON; without one this prints how to give it
and exits 0. The program is benchmarks/fluid_programs.py, run as it is by Fluid's Python and by pe
(``python -m pe_cli fluid fluid_programs.py``): LSTM and GRU text classifiers, a sparse CTR model, the
MLP and LeNet-5, a seq2seq model with attention and its beam-search decoding (FEW_STEPS), each on 1 device (Executor) and on 2 CPU places (CompiledProgram.with_data_parallel,
CPU_NUM=2). Each engine first runs every model once (numba's cache and the disk cache warm up), then the
repetitions alternate the engines model by model (pe first in even repetitions, Fluid first in odd ones),
so a change of the machine's load falls on both; all of it on the machine as it is ("quiet"), then
again while one competing busy process (``while True: pass``) occupies a core ("busy").

The table keeps each engine's best time per step over the repetitions and the spread (slowest
repetition over the best); pe/Fluid is best over best, and "best config" compares each engine's best
configuration. The losses of the warm-up steps must agree on the dense models (MLP, LeNet-5), which start
from the same weights on the same batches; the others' difference is printed (Fluid 1.8.5's
dynamic_lstm gradient disagrees with central differences on this model: docs/PERFORMANCE.md).
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "fluid_programs.py")
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)
from pe_cli.executor.parallel_scheduler import CALIBRATION_RUNS  # noqa: E402
from pe_cli.kernels.cpu.runtime.measured_choices import cpu_model  # noqa: E402
from pe_cli.kernels.cpu.runtime.vector_width import describe as vector_width  # noqa: E402

DENSE = ("mlp", "lenet")
# (warm-up, timed steps) of the models whose step takes seconds (seq2seq's training step 1-10 s, a beam
# decoding 1-35 s on the 2-core VMs): fewer, instead of --warmup and --steps. The warm-up still covers
# pe's scheduler calibration: a data-parallel schedule's first CALIBRATION_RUNS runs hold the token
# throughout (one thread), and with one warm-up step the 2-place rows timed those (seq2seq 2,098 ms
# against 808 on 1 device, 2026-11-28)
FEW_STEPS = {"seq2seq": (CALIBRATION_RUNS, 3), "beam": (CALIBRATION_RUNS, 2)}
LOSS_RTOL = 1e-4


def run_program(engine, fluid_python, model, args, warmup, steps):
    """The JSON records of one engine's process running ``model`` in every configuration."""
    command = [sys.executable, "-m", "pe_cli", "fluid"] if engine == "pe" else [fluid_python]
    command += [PROGRAM, "--models", model, "--configs", args.configs, "--warmup", str(warmup), "--steps", str(steps)]
    env = dict(
        os.environ, PE_QUIET="1", CPU_NUM=str(max(int(d) for d in args.configs.split(","))), GLOG_minloglevel="2"
    )
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "") if engine == "pe" else ""
    if engine == "pe":  # its planned segments compiled in the warm-up (a run's first 50 call their loops one by one)
        env.setdefault("PE_SEGMENT_COMPILE_AFTER", "2")
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=HERE)
    if proc.returncode:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit(f"fluid_bench: {engine} failed on {model} (exit {proc.returncode}; its error above)")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def run_phase(args, fluid_python, models):
    """{(model, devices): {engine: [record of each repetition]}}."""
    results = {}
    for rep in range(args.reps):
        for model in models:
            warmup, steps = FEW_STEPS.get(model, (args.warmup, args.steps))
            for engine in ("pe", "fluid") if rep % 2 == 0 else ("fluid", "pe"):
                for record in run_program(engine, fluid_python, model, args, warmup, steps):
                    results.setdefault((model, record["devices"]), {}).setdefault(engine, []).append(record)
        print(f"  repetition {rep + 1} of {args.reps} done", flush=True)
    return results


def loss_check(results):
    """Per model: the largest relative difference of the warm-up losses, pe against Fluid (1 device)."""
    diffs = {}
    for (model, devices), by_engine in results.items():
        pe, fluid = by_engine["pe"][0]["losses"], by_engine["fluid"][0]["losses"]
        diff = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(pe, fluid))
        diffs[model] = max(diffs.get(model, 0.0), diff)
    return diffs


def table(results, models, title):
    lines = [
        title,
        f"  {'model':6s} {'config':10s} {'pe ms':>8s} {'spread':>7s} {'Fluid ms':>9s} {'spread':>7s} "
        f"{'pe/Fluid':>9s} {'per rep':>11s}",
    ]
    rows = {}
    for model in models:
        for (m, devices), by_engine in sorted(results.items()):
            if m != model:
                continue
            pe = [r["per_step_ms"] for r in by_engine["pe"]]
            fl = [r["per_step_ms"] for r in by_engine["fluid"]]
            per_rep = [a / b for a, b in zip(pe, fl)]
            rows[(model, devices)] = (pe, fl)
            config = "1 device" if devices == 1 else f"{devices} devices"
            lines.append(
                f"  {model:6s} {config:10s} {min(pe):8.2f} {max(pe) / min(pe):6.2f}x {min(fl):9.2f} "
                f"{max(fl) / min(fl):6.2f}x {min(pe) / min(fl):9.2f} "
                f"{min(per_rep):5.2f}-{max(per_rep):4.2f}"
            )
        # each engine's best configuration, over all repetitions and within each one
        pe, fl = ([min(times) for times in zip(*[v[i] for (m, _), v in rows.items() if m == model])] for i in (0, 1))
        per_rep = [a / b for a, b in zip(pe, fl)]
        lines.append(
            f"  {model:6s} {'best conf':10s} {min(pe):8.2f} {'':7s} {min(fl):9.2f} {'':7s} "
            f"{min(pe) / min(fl):9.2f} {min(per_rep):5.2f}-{max(per_rep):4.2f}"
        )
    return "\n".join(lines)


def summary(results):
    """{model: {devices: {engine: [per-step ms of each repetition]}}} for --json."""
    out = {}
    for (model, devices), by_engine in results.items():
        out.setdefault(model, {})[devices] = {e: [r["per_step_ms"] for r in rs] for e, rs in by_engine.items()}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--fluid-python",
        default=os.environ.get("PE_FLUID_PYTHON"),
        help="Python of a Fluid 1.8.5 environment (default: $PE_FLUID_PYTHON)",
    )
    parser.add_argument("--models", default="lstm,gru,ctr,mlp,lenet,seq2seq,beam")
    parser.add_argument("--configs", default="1,2", help="devices of each configuration")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--quiet-only", action="store_true", help="skip the phase with a competing busy process")
    parser.add_argument("--json", help="also write the times here")
    args = parser.parse_args()
    if not args.fluid_python:
        print(
            "fluid_bench: no Fluid 1.8.5 to compare with; give its Python 3.8 with --fluid-python PY or "
            "PE_FLUID_PYTHON=PY (a venv with paddlepaddle==1.8.5)"
        )
        return 0
    if not os.path.isfile(args.fluid_python):
        raise SystemExit(f"fluid_bench: {args.fluid_python}: no such file (--fluid-python / PE_FLUID_PYTHON)")
    models = [m for m in args.models.split(",") if m]
    print(
        f"fluid_bench: {cpu_model()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
        f"{args.reps} repetitions x ({args.warmup} warm-up + {args.steps} timed steps"
        + "".join(f"; {m} {w} + {n}" for m, (w, n) in FEW_STEPS.items() if m in models)
        + "), engines alternating",
        flush=True,
    )
    print(f"fluid_bench: pe's {vector_width()}", flush=True)
    for model in models:  # numba's cache, the page cache: warm before anything is timed
        for engine in ("pe", "fluid"):
            run_program(engine, args.fluid_python, model, args, 1, 0 if model in FEW_STEPS else 1)
    phases = {"quiet": run_phase(args, args.fluid_python, models)}
    if not args.quiet_only:
        competitor = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            print("  with one competing busy process:", flush=True)
            phases["busy"] = run_phase(args, args.fluid_python, models)
        finally:
            competitor.kill()
            competitor.wait()
    for phase, results in phases.items():
        print(
            "\n"
            + table(
                results,
                models,
                f"{phase}: best time per step (ms) over {args.reps} repetitions; "
                f"spread = slowest / best; pe/Fluid best over best, and per repetition",
            )
        )
    diffs = loss_check(phases["quiet"])
    print(
        "\nwarm-up losses, largest relative difference pe / Fluid: "
        + ", ".join(f"{m} {d:.1e}" for m, d in diffs.items())
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "cpu": cpu_model(),
                    "vector_width": vector_width(),
                    "phases": {p: summary(r) for p, r in phases.items()},
                    "loss_diffs": diffs,
                },
                f,
                indent=1,
            )
    bad = [m for m in DENSE if diffs.get(m, 0.0) > LOSS_RTOL]
    if bad:
        print(f"fluid_bench: the losses of pe and Fluid differ on {', '.join(bad)} (same weights, same batches)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
