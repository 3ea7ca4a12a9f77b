"""One bench_models.py model in several configurations of several pe trees and PyTorch, timed in
alternating rounds by workers started once: did a change make a step faster, and where does it stand
against PyTorch, on a machine whose load moves by the minute?

    python benchmarks/ab_workers.py --model ctr old=OLD_TREE:1f new=.:1f old2=OLD_TREE:2f new2=.:2f \\
        torch=.:t2 --ratios new/old,new2/old2,new2/new,new/torch

A configuration is ``LABEL=TREE:CONFIG``: TREE a checkout of pe (``git worktree add``; its own
bench_models.py and bench_cpu.py's FUSED build the model), CONFIG ``1`` or ``2`` (CPU devices, pe's
default Executor or data parallelism), ``1f`` / ``2f`` (the same with bench_cpu.py's fused build
strategy), ``t1`` / ``t2`` (PyTorch on that many threads). Each worker builds the model once and warms
it up; each round asks every worker in turn for ``--steps`` steps (wall time over the steps). The
summary gives each configuration's median and best round and, for each ``--ratios`` pair A/B, the
median of the per-round ratios A / B (a busy moment falls on both) and A's best over B's best.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

WORKER = r"""
import json, sys, time
tree, model, config = sys.argv[1:4]
sys.path[:0] = [tree + "/benchmarks", tree]
from bench_cpu import FUSED
from bench_models import MODELS, PeModel, TorchModel, strategy_of
if config.startswith("t"):
    m = TorchModel(model, MODELS[model], int(config[1:]))
else:
    m = PeModel(model, MODELS[model], int(config[0]), strategy_of(FUSED) if config.endswith("f") else None)
for _ in range(int(sys.argv[4])):
    m.step()
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    n = int(line)
    start = time.perf_counter()
    for _ in range(n):
        m.step()
    print(json.dumps({"ms": (time.perf_counter() - start) / n * 1e3}), flush=True)
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+", help="LABEL=TREE:CONFIG")
    parser.add_argument("--model", default="ctr")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=12)
    parser.add_argument("--ratios", default="", help="comma-separated LABEL/LABEL pairs")
    args = parser.parse_args()
    workers = {}
    try:
        for spec in args.configs:
            label, _, rest = spec.partition("=")
            tree, _, config = rest.rpartition(":")
            env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
            workers[label] = subprocess.Popen(
                [sys.executable, "-c", WORKER, os.path.abspath(tree), args.model, config, str(args.warmup)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=env,
            )
            json.loads(workers[label].stdout.readline())
        times, loads = {label: [] for label in workers}, []
        for _ in range(args.rounds):
            loads.append(os.getloadavg()[0])
            for label, worker in workers.items():
                worker.stdin.write(f"{args.steps}\n")
                worker.stdin.flush()
                times[label].append(json.loads(worker.stdout.readline())["ms"])
    finally:
        for worker in workers.values():
            worker.stdin.close()
            worker.wait()
    print(
        f"{args.model}: {args.rounds} rounds of {args.steps} steps, one-minute load {min(loads):.2f}-{max(loads):.2f}"
    )
    for label, values in times.items():
        print(f"  {label:<12} median {statistics.median(values):8.2f} ms  best {min(values):8.2f} ms")
    for pair in filter(None, args.ratios.split(",")):
        a, b = pair.split("/")
        ratios = [x / y for x, y in zip(times[a], times[b])]
        print(
            f"  {a}/{b}: median of the rounds' ratios {statistics.median(ratios):.3f} "
            f"({min(ratios):.3f}-{max(ratios):.3f}), best / best {min(times[a]) / min(times[b]):.3f}"
        )


if __name__ == "__main__":
    main()
