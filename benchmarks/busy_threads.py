"""The thread rule on a quiet and on a busy machine: pe's default (threads follow the free cores,
pe_cli/kernels/cpu/runtime/cpu_load.py) against a fixed 1 thread and a fixed 2 threads per device, step
times side by side in the same run, without and with one competing busy process.

    .venv/bin/python benchmarks/busy_threads.py [--models mlp,lenet] [--steps 200]

Each cell is the time per step (ms; the wall time of ``--steps`` steps over the steps, so that
the stalls a busy core causes count) of one worker process (bench_cpu.py's models: MLP
784-256-256-10 batch 128, LeNet-5 batch 64, momentum SGD) after 20 warm-up steps, and in brackets
the median step, which leaves the stalls out.
"""

import argparse
import json
import os
import runpy
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = {
    "default (follows free cores)": {},
    "1 thread": {"PE_DEVICE_THREADS": "1"},
    "2 threads": {"PE_DEVICE_THREADS": "2"},
}


def worker(model, steps):
    bench = runpy.run_path(os.path.join(HERE, "bench_cpu.py"))
    m = bench["PeModel"](model, bench["MODELS"][model], 1)
    for _ in range(20):
        m.step()
    times = []
    first = time.perf_counter()
    for _ in range(steps):
        start = time.perf_counter()
        m.step()
        times.append(time.perf_counter() - start)
    print(json.dumps([(time.perf_counter() - first) / steps * 1e3, statistics.median(times) * 1e3]))


def measure(model, steps, env):
    out = subprocess.run(
        [sys.executable, __file__, "--worker", model, "--steps", str(steps)],
        env=dict(os.environ, PE_QUIET="1", **env),
        capture_output=True,
        text=True,
    )
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp,lenet")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.steps)
    print(f"{'machine':<7} {'model':<6} " + "  ".join(f"{v:>28}" for v in VARIANTS))
    for busy in (False, True):
        competitor = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
        try:
            time.sleep(0.5)
            for model in args.models.split(","):
                cells = [measure(model, args.steps, env) for env in VARIANTS.values()]
                print(
                    f"{'busy' if busy else 'quiet':<7} {model:<6} "
                    + "  ".join(f"{c:>14.2f} ms ({m:6.2f} ms)" for c, m in cells),
                    flush=True,
                )
        finally:
            if competitor:
                competitor.kill()


if __name__ == "__main__":
    main()
