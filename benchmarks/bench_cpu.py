"""CPU training speed: pe (1 and N CPU devices) against PyTorch (1 and N threads), side by side.

    make bench                                   # installs torch==2.13.0 (CPU) into .venv first
    .venv/bin/python benchmarks/bench_cpu.py [--reps 3] [--steps 50] [--warmup 10] [--json out.json]

Models: bench_models.py (MLP, LeNet-5, the seed's tiny model, a small ResNet, a wide MLP, an LSTM, the
Transformer encoder of configs/mnist_rows_transformer.yaml, momentum SGD; a sparse CTR model, lazy Adam; a
seq2seq model with attention and its beam search; synthetic data, the same initial weights in pe and PyTorch).

Every configuration is measured twice in the same run: on the machine as it is ("quiet"), then while
one competing busy process (``while True: pass``) occupies a core ("busy"); ``--quiet-only`` skips
the second phase.

Each configuration lives in its own worker process, started once; the driver asks them in turn
(model by model, configuration by configuration, three repetitions), so a busy moment of the
machine hits all of them alike. A measurement is the wall time of ``--steps`` steps after ``--warmup``
steps, divided by the steps (the time per step a training run sees); the table keeps each
configuration's best over the repetitions (the ratio pe / PyTorch within each repetition is printed
too: on a shared machine it moves by 0.1 between repetitions minutes apart). Not the median step:
with a busy process, a parallel configuration stalls a time slice on some steps only, and the
median left those out (PyTorch on 2 threads: median 1.0 ms, 4.1 ms a step over the run;
docs/PERFORMANCE.md). The median is still reported, to show those stalls. Before the first, every pe
worker trains a copy of each model one step and waits for its compile helper,
so that no helper still compiles while another worker is timed. It also
measures numpy's float32 matmul (1 and N threads) in the same run, as the ceiling, checks that pe's
and PyTorch's losses match over the warm-up steps, profiles pe's steps (kernels, dispatch, data;
the top ops), and times pe's start-up.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_models import (
    BATCH_NORM_MODELS,
    MODELS,
    NETS,
    STEPS_SCALE,
    PeModel,
    TorchModel,  # noqa: E402
    model_flops,
    strategy_of,
)

GEMM_BOUND = ("mlp", "wide")  # models whose step is GEMMs and little else: the report gives their floor
# the fused configuration's build strategy: each fc layer's bias and relu in its GEMM, and each batch
# norm's relu in its passes, and each residual add with its relu one pass, each attention one op, and each
# embedding summed over its sequences one op, as PyTorch's nn.EmbeddingBag (docs/PARALLEL.md)
FUSED = {
    "fuse_gemm_epilogue": True,
    "fuse_bn_act_ops": True,
    "fuse_elewise_add_act_ops": True,
    "fuse_attention": True,
    "fuse_embedding_seq_pool": True,
}


def matmul_gflops(threads, n=1024, reps=10):
    import numpy as np
    import threadpoolctl

    a = np.random.default_rng(0).random((n, n), dtype=np.float32)
    with threadpoolctl.threadpool_limits(threads, user_api="blas"):
        a @ a
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            a @ a
            times.append(time.perf_counter() - start)
    return 2 * n**3 / statistics.median(times) / 1e9


def worker(kind, arg, options):
    """A worker process: builds models on request and times their steps (JSON lines on stdin/out);
    ``options``: pe's BuildStrategy options ({} for none)."""
    models = {}
    out = sys.stdout
    sys.stdout = sys.stderr  # anything printed by libraries stays off the protocol
    for line in sys.stdin:
        cmd = json.loads(line)
        reply = {}
        if cmd["cmd"] == "quit":
            break
        if cmd["cmd"] == "ceiling":
            reply = {"gflops": matmul_gflops(cmd["threads"])}
        elif cmd["cmd"] == "run":
            name, batch = cmd["model"], MODELS[cmd["model"]]
            if name not in models:
                models[name] = (
                    PeModel(name, batch, arg, strategy_of(options)) if kind == "pe" else TorchModel(name, batch, arg)
                )
            m = models[name]
            losses = [m.step() for _ in range(cmd["warmup"])]
            if kind == "pe":  # the parallel loops a first run compiles in the background: ready now
                from pe_cli.kernels import finish_compiling

                finish_compiling()
                m.step()
            times = []
            first = time.perf_counter()
            for _ in range(cmd["steps"]):
                start = time.perf_counter()
                m.step()
                times.append(time.perf_counter() - start)
            reply = {
                "per_step": (time.perf_counter() - first) / len(times),
                "median": statistics.median(times),
                "losses": losses,
                "threads": m.threads,
            }
        elif cmd["cmd"] == "prepare":  # compile what the model needs, on a copy the timed runs never see
            PeModel(cmd["model"], MODELS[cmd["model"]], arg, strategy_of(options)).step()
            from pe_cli.kernels import finish_compiling

            finish_compiling()
        elif cmd["cmd"] == "profile":
            from pe_cli.base import profiler

            m = models[cmd["model"]]
            with profiler.collect() as prof:
                for _ in range(cmd["steps"]):
                    m.step()
            reply = {"summary": prof.summary(), "table": prof.table("total")}
        out.write(json.dumps(reply) + "\n")
        out.flush()


class Worker:
    def __init__(self, label, kind, arg, env=None, options=None):
        self.label = label
        # a planned step's segments compiled in the warm-up (PE_SEGMENT_COMPILE_AFTER: a run's first 50 call
        # their loops one by one): what a training run's steps run after its first 50, not a compile timed
        env = dict({"PE_SEGMENT_COMPILE_AFTER": "2"}, **os.environ, PE_QUIET="1", **(env or {}))
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", kind, str(arg), json.dumps(options or {})],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def ask(self, **cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"bench: worker {self.label} died (see its error above)")
        return json.loads(line)

    def close(self):
        try:
            self.proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait(timeout=30)


# -- start-up ---------------------------------------------------------------------------------------


def startup_times(reps=5, cold_reps=2):
    """Best wall times (s) of: importing pe_cli, `pe --help`, and a fresh process up to the end of
    its first training step (LeNet-5 batch 64), numba's cache warm, then empty (a first run on a
    machine: the loops compile in a helper process while numpy replicas run), and empty with the
    helper off (``PE_COMPILE_HELPER=0``: the step waits for numba, as before the helper)."""
    py = sys.executable
    pe = os.path.join(os.path.dirname(py), "pe")
    first_step = (
        "import time, sys; t0 = float(sys.argv[1]); sys.argv = sys.argv[:1]; "
        "import runpy; g = runpy.run_path(%r); "
        "m = g['PeModel']('lenet', 64, 1); m.step(); print(time.time() - t0)"
    ) % os.path.abspath(__file__)

    def best(cmd, parse=False, n=reps, **env):
        times = []
        for _ in range(n):
            start = time.time()
            if "NUMBA_CACHE_DIR" in env:
                env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="pe-cold-")
            out = subprocess.run(
                cmd + ([repr(start)] if parse else []),
                capture_output=True,
                text=True,
                env=dict(os.environ, PE_QUIET="1", **env),
            )
            if env.get("NUMBA_CACHE_DIR"):
                shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
            if out.returncode:
                return None
            times.append(float(out.stdout.strip().splitlines()[-1]) if parse else time.time() - start)
        return min(times)

    subprocess.run([py, "-c", first_step, repr(time.time())], capture_output=True)  # fills numba's cache
    return {
        "import pe_cli": best([py, "-c", "import pe_cli"]),
        "pe --help": best([pe, "--help"]) if os.path.exists(pe) else None,
        "first LeNet-5 step": best([py, "-c", first_step], parse=True),
        "first step, cold": best([py, "-c", first_step], parse=True, n=cold_reps, NUMBA_CACHE_DIR=""),
        "  without the helper": best(
            [py, "-c", first_step], parse=True, n=cold_reps, NUMBA_CACHE_DIR="", PE_COMPILE_HELPER="0"
        ),
    }


# -- the driver ---------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--models", default="mlp,mlp512,lenet,seed,resnet,wide,lstm,transformer,ctr,seq2seq,beam")
    parser.add_argument(
        "--devices",
        type=int,
        default=None,
        help="N for 'pe N devices' and 'torch N threads' (default: the cores pe uses)",
    )
    parser.add_argument("--no-torch", action="store_true", help="measure pe only")
    parser.add_argument("--quiet-only", action="store_true", help="skip the phase with a competing busy process")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), json.loads(args.worker[2]))

    from pe_cli.kernels.cpu.runtime import threads

    n = args.devices or max(2, threads.cores())
    models = [m for m in args.models.split(",") if m]
    if not args.no_torch:
        try:
            import importlib.util

            if importlib.util.find_spec("torch") is None:
                raise ImportError
        except ImportError:
            raise SystemExit(
                "bench: PyTorch is not installed; run `make bench` (it installs torch==2.13.0 "
                "into .venv) or pass --no-torch"
            )
    # (label, kind, devices or torch threads, threads in use, environment); "pe 1 dev" is pe's default,
    # "fused" a CompiledProgram whose BuildStrategy fuses each fully connected layer and batch norm + relu (FUSED)
    configs = [
        ("pe 1 dev 1 thr", "pe", 1, 1, {"PE_DEVICE_THREADS": "1"}),
        ("pe 1 dev", "pe", 1, n, {}),
        ("pe 1 dev fused", "pe", 1, n, {}),
        (f"pe {n} dev", "pe", n, n, {}),
        (f"pe {n} dev fused", "pe", n, n, {}),
    ]
    if not args.no_torch:
        configs += [("torch 1 thr", "torch", 1, 1, {}), (f"torch {n} thr", "torch", n, n, {})]
    print(
        f"bench: {threads.cores()} core(s); models {', '.join(models)}; {args.reps} repetitions x "
        f"({args.warmup} warm-up + {args.steps} timed steps); configurations interleaved",
        flush=True,
    )
    workers = {
        label: Worker(label, kind, arg, env, FUSED if label.endswith("fused") else None)
        for label, kind, arg, _, env in configs
    }
    ceiling_worker = Worker("numpy", "pe", 1)
    try:
        # every pe worker compiles its loops first: a helper process compiling for one worker while
        # another is timed would count as load, and the thread rule would take a core from it
        for model in models:
            for label, kind, *_ in configs:
                if kind == "pe":
                    workers[label].ask(cmd="prepare", model=model)
        results, medians, losses, thread_notes, ceilings = run_phase(args, models, configs, workers, ceiling_worker, n)
        busy = None
        if not args.quiet_only:
            competitor = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            try:
                print("  with one competing busy process:", flush=True)
                busy = run_phase(args, models, configs, workers, ceiling_worker, n)[:2]
            finally:
                competitor.kill()
                competitor.wait()
        profiles = {
            (model, label): workers[label].ask(cmd="profile", model=model, steps=_steps(args, model))
            for model in models
            for label, kind, *_ in configs
            if kind == "pe"
        }
    finally:
        for w in list(workers.values()) + [ceiling_worker]:
            w.close()
    report = summarize(models, configs, results, medians, losses, ceilings, n)
    if busy is not None:
        report["busy"] = busy_summary(models, *busy)
    print_report(report, configs, thread_notes, profiles, n)
    print("\nstart-up (best of 5, seconds):", flush=True)
    start = startup_times()
    for what, seconds in start.items():
        print(f"  {what:<22} {'n/a' if seconds is None else f'{seconds:.3f}'}")
    if args.json:
        with open(args.json, "w") as f:
            from pe_cli.run.machine_info import report as machine  # the CPU, its vector width, the BLAS

            json.dump(
                {
                    "machine": machine(),
                    "report": report,
                    "startup": start,
                    "threads": thread_notes,
                    "profiles": {f"{m} / {c}": p["summary"] for (m, c), p in profiles.items()},
                },
                f,
                indent=1,
            )
    failed = [m for m in models if report["models"][m].get("ok") is False]
    if failed:
        print(f"\nbench: losses of pe and PyTorch differ for {', '.join(failed)}")
        return 1
    return 0


def _steps(args, model):
    return max(3, int(args.steps * STEPS_SCALE.get(model, 1)))


def run_phase(args, models, configs, workers, ceiling_worker, n):
    """``args.reps`` rounds over every model and configuration: (times per step, medians, losses,
    notes, ceilings)."""
    results = {m: {label: [] for label, *_ in configs} for m in models}
    medians = {m: {label: [] for label, *_ in configs} for m in models}
    losses, notes, ceilings = {}, {}, {1: [], n: []}
    for rep in range(args.reps):
        for t in (1, n):
            ceilings[t].append(ceiling_worker.ask(cmd="ceiling", threads=t)["gflops"])
        for model in models:
            warmup = max(2, int(args.warmup * STEPS_SCALE.get(model, 1)))
            for label, *_ in configs:
                r = workers[label].ask(cmd="run", model=model, warmup=warmup, steps=_steps(args, model))
                results[model][label].append(r["per_step"])
                medians[model][label].append(r["median"])
                losses.setdefault((model, label), r["losses"])
                notes[label] = r["threads"]
        print(f"  repetition {rep + 1}/{args.reps} done", flush=True)
    return results, medians, losses, notes, ceilings


def busy_summary(models, results, medians):
    """Per model, with the busy process: each configuration's best time per step (and best median
    step), pe's best over PyTorch's best, and pe's default ('pe 1 dev') over pe's best."""
    out = {}
    for model in models:
        best = {label: min(times) for label, times in results[model].items()}
        pe_best = min(v for k, v in best.items() if k.startswith("pe"))
        torch = [v for k, v in best.items() if k.startswith("torch")]
        out[model] = {
            "best_s": best,
            "best_median_s": {label: min(t) for label, t in medians[model].items()},
            "pe_default_over_pe_best": best["pe 1 dev"] / pe_best,
        }
        if torch:
            out[model]["pe_over_torch"] = pe_best / min(torch)
            out[model]["pe_over_torch_reps"] = ratio_per_rep(results[model])
    return out


def ratio_per_rep(times):
    """pe's best over PyTorch's best within each repetition (``times``: label -> one time a
    repetition): how far the machine's noise moves the ratio between runs minutes apart."""
    reps = min(len(t) for t in times.values())
    return [
        min(t[r] for k, t in times.items() if k.startswith("pe"))
        / min(t[r] for k, t in times.items() if k.startswith("torch"))
        for r in range(reps)
    ]


def summarize(models, configs, results, medians, losses, ceilings, n):
    import numpy as np

    ceiling = {t: max(v) for t, v in ceilings.items()}
    out = {"ceiling_gflops": ceiling, "models": {}}
    for model in models:
        best = {label: min(times) for label, times in results[model].items()}
        entry = {
            "batch": MODELS[model],
            "mflop": model_flops(model, MODELS[model]) / 1e6,
            "best_s": best,
            "per_step_s": results[model],
            "medians_s": medians[model],
        }
        pe_best = min(v for k, v in best.items() if k.startswith("pe"))
        torch = [v for k, v in best.items() if k.startswith("torch")]
        if torch:
            entry["pe_over_torch"] = pe_best / min(torch)
            entry["pe_over_torch_reps"] = ratio_per_rep(results[model])
            if NETS.get(model, model) in GEMM_BOUND:
                # the step's multiply-adds at the machine's matmul ceiling: no step of any framework
                # whose GEMMs run at that speed can be faster (PyTorch's and pe's GEMMs run at the
                # same speed on the MLP's shapes: docs/PERFORMANCE.md)
                floor = entry["mflop"] / 1e3 / max(ceiling.values())
                entry["floor_s"], entry["floor_over_torch"] = floor, floor / min(torch)
            ref = np.array(losses.get((model, "torch 1 thr")))
            rel, absolute, ok = [], [], True
            for label, kind, devices, *_ in configs:
                # batch norm normalizes each device's part of the batch (Fluid's semantics without
                # sync_batch_norm): with N devices the ResNet's losses differ from one device's by design
                if kind == "pe" and not (model in BATCH_NORM_MODELS and devices > 1):
                    diff = np.abs(np.array(losses[(model, label)]) - ref)
                    absolute.append(float(np.max(diff)))
                    rel.append(float(np.max(diff / np.maximum(np.abs(ref), 1e-12))))
                    # float32 rounding: relative to the loss, or absolute where the loss is a mean of
                    # O(1) terms that cancel (the seed model's loss passes through 0)
                    ok = ok and bool(np.all(diff <= 1e-5 * np.abs(ref) + 1e-6))
            entry["max_loss_abs_diff"], entry["max_loss_rel_diff"], entry["ok"] = max(absolute), max(rel), ok
        out["models"][model] = entry
    return out


def print_report(report, configs, thread_notes, profiles, n):
    from pe_cli.run.machine_info import report as machine  # the CPU and what pe chose on it (pe info)

    print("\n" + "\n".join(machine()))
    ceiling = report["ceiling_gflops"]
    print(
        f"\nnumpy float32 matmul 1024^3 (the ceiling): 1 thread {ceiling[1]:.0f} GFLOP/s, "
        f"{n} threads {ceiling[n]:.0f} GFLOP/s"
    )
    for label, *_ in configs:
        print(f"  {label:<15} {thread_notes.get(label, '')}")
    labels = [label for label, *_ in configs]
    ref_label = "torch 1 thr" if "torch 1 thr" in labels else "pe 1 dev"
    print(
        "\nbest time per step, ms (relative to " + ref_label + "); GFLOP/s (% of the matmul ceiling "
        "for that thread count)"
    )
    head = f"{'model (batch)':<16}" + "".join(f"{label:>22}" for label in labels) + f"{'pe / torch':>12}"
    print(head)
    for model, e in report["models"].items():
        ref = e["best_s"][ref_label]
        cells = []
        for label, kind, arg, used, _ in configs:
            t = e["best_s"][label]
            gflops = e["mflop"] / 1e3 / t
            pct = 100 * gflops / ceiling[used]
            cells.append(
                f"{1e3 * t:8.3f} ({t / ref:4.2f}) {gflops:4.0f}/{pct:2.0f}%"
                if model != "seed"
                else f"{1e3 * t:8.3f} ({t / ref:4.2f})      "
            )
        ratio = f"{e['pe_over_torch']:12.2f}" if "pe_over_torch" in e else ""
        print(f"{model + ' (' + str(e['batch']) + ')':<16}" + "".join(f"{c:>22}" for c in cells) + ratio)
    if "busy" in report:
        print(
            "\nwith one competing busy process: best time per step, ms; pe's best over PyTorch's best, "
            "and pe's default (pe 1 dev) over pe's best"
        )
        print(
            f"{'model (batch)':<16}" + "".join(f"{label:>16}" for label in labels) + f"{'pe / torch':>12}"
            f"{'default/best':>14}"
        )
        for model, e in report["busy"].items():
            cells = "".join(f"{1e3 * e['best_s'][label]:16.3f}" for label in labels)
            ratio = f"{e['pe_over_torch']:12.2f}" if "pe_over_torch" in e else " " * 12
            quiet = report["models"][model].get("pe_over_torch")
            print(
                f"{model + ' (' + str(report['models'][model]['batch']) + ')':<16}{cells}{ratio}"
                f"{e['pe_default_over_pe_best']:14.2f}" + (f"   (quiet pe / torch {quiet:.2f})" if quiet else "")
            )
        print("the same, best median step (the steps without a stall; not what a run takes)")
        for model, e in report["busy"].items():
            cells = "".join(f"{1e3 * e['best_median_s'][label]:16.3f}" for label in labels)
            print(f"{model + ' (' + str(report['models'][model]['batch']) + ')':<16}{cells}")
    per_rep = []
    for model, e in report["models"].items():
        phases = [e] + ([report["busy"][model]] if "busy" in report else [])
        if all("pe_over_torch_reps" in p for p in phases):
            per_rep.append(
                f"{model} " + " | ".join(" ".join(f"{r:.2f}" for r in p["pe_over_torch_reps"]) for p in phases)
            )
    if per_rep:
        print(
            "pe / torch within each repetition (quiet"
            + (" | busy" if "busy" in report else "")
            + "): "
            + "; ".join(per_rep)
        )
    for model, e in report["models"].items():
        if "floor_s" in e:
            print(
                f"{model}: its GEMMs alone at the {max(ceiling.values()):.0f} GFLOP/s ceiling take {1e3 * e['floor_s']:.3f} ms, "
                f"{e['floor_over_torch']:.2f} of PyTorch's best step (the least any pe / torch ratio can be)"
            )
    for model, e in report["models"].items():
        if "max_loss_rel_diff" in e:
            print(
                f"losses over the warm-up steps, pe vs torch 1 thread, {model}: max difference "
                f"{e['max_loss_abs_diff']:.1e} (relative {e['max_loss_rel_diff']:.1e}; "
                f"{'ok' if e['ok'] else 'MISMATCH'}: within 1e-5 relative + 1e-6)"
            )
    print(
        "\nwhere a pe step goes (profiled runs; with N devices, kernels and dispatch are summed over the "
        "devices' threads)"
    )
    for (model, label), p in profiles.items():
        s = p["summary"]
        print(
            f"  {model:<6} {label:<15} step {s['step_ms']:7.3f} ms = kernels {s['kernel_ms']:7.3f} + dispatch "
            f"{s['dispatch_ms']:6.3f} ({s['dispatch_us_per_op']:4.1f} us/op x {s['ops_per_run']:.0f} ops) "
            f"+ data {s['data_ms']:6.3f}"
        )
    for (model, label), p in profiles.items():
        if label == "pe 1 dev":
            top = p["table"].splitlines()
            print(f"\n  {model}, pe 1 device, top ops:")
            for line in top[:9]:
                print("    " + line)


if __name__ == "__main__":
    sys.exit(main())
