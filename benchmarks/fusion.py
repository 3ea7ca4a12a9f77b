"""Step time without and with BuildStrategy.fuse_elewise_add_act_ops, side by side in one run:

    python benchmarks/fusion.py [--reps 5] [--steps 60] [--models mlp,lenet]

Both configurations of a model are built in this process (one CPU device, the same weights and
batch: bench_models.py) and measured in turn, ``--reps`` times: a measurement is the median of
``--steps`` step times after 10 warm-up steps; the table keeps each one's best. Then the same again
while one competing busy process occupies a core (``--quiet-only`` skips it). The losses of the two
must be equal (the pass leaves every number bitwise unchanged).
"""
import argparse
import multiprocessing
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_models import MODELS, PeModel  # noqa: E402


def _busy():
    while True:
        pass


def _median_step(model, steps):
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        model.step()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def measure(name, reps, steps):
    import pe_cli.fluid as fluid
    from pe_cli.kernels import finish_compiling
    models = {}
    for fuse in (False, True):
        strategy = fluid.BuildStrategy()
        strategy.fuse_elewise_add_act_ops = fuse
        models[fuse] = PeModel(name, MODELS[name], 1, build_strategy=strategy)
    losses = {fuse: [m.step() for _ in range(10)] for fuse, m in models.items()}
    finish_compiling()
    best = {False: float("inf"), True: float("inf")}
    for _ in range(reps):
        for fuse, m in models.items():
            best[fuse] = min(best[fuse], _median_step(m, steps))
    return best, losses[False] == losses[True]


def table(models, reps, steps, label):
    print(f"{label}: best median step time, ms")
    print(f"{'model (batch)':<16}{'fusion off':>12}{'fusion on':>12}{'on / off':>10}  same losses")
    for name in models:
        best, same = measure(name, reps, steps)
        print(f"{name + f' ({MODELS[name]})':<16}{best[False] * 1e3:>12.3f}{best[True] * 1e3:>12.3f}"
              f"{best[True] / best[False]:>10.3f}  {same}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--models", default="mlp,lenet")
    parser.add_argument("--quiet-only", action="store_true")
    args = parser.parse_args()
    models = args.models.split(",")
    table(models, args.reps, args.steps, "quiet")
    if not args.quiet_only:
        busy = multiprocessing.Process(target=_busy, daemon=True)
        busy.start()
        try:
            table(models, args.reps, args.steps, "with one competing busy process")
        finally:
            busy.terminate()


if __name__ == "__main__":
    main()
