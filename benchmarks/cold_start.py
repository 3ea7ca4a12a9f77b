"""A first `pe train` on a machine: time to the first training step with an empty numba cache, with
the compile helper (the default) and without it (PE_COMPILE_HELPER=0: every loop compiled before the
step), the two alternating so that the machine's load falls on both alike.

    .venv/bin/python benchmarks/cold_start.py [--rounds 3] [--config configs/mnist_lenet.yaml] [--busy]
    .venv/bin/python benchmarks/cold_start.py --end-to-end [--rounds 5] [--tree OTHER_CHECKOUT]...

--busy runs every configuration beside one competing busy process (``while True: pass``).

Each cold run gets a new empty NUMBA_CACHE_DIR (removed afterwards) and trains one step; printed: each
run's seconds to its first "train epoch" line and to its end, the best of each, and their ratio.

--end-to-end (issue 79's cold start): the whole `pe train CONFIG --max-steps 1`, with an empty numba
cache (cold) and with the tree's own warm cache, for this checkout and each --tree (another checkout,
e.g. ``git archive <commit> | tar -x -C DIR``; its warm cache is its own ``__pycache__``), all
alternating within a round. Printed per setting: the median and each run's wall seconds, the median
CPU seconds of the `pe` process itself (user + system: what a quiet machine's wall time would be
near; the compile helper, which outlives it, is not counted) and the median one-minute load average
at the start of the runs (the machine's other work: on a shared 2-core VM it multiplies wall time).
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PE = os.path.join(os.path.dirname(sys.executable), "pe")


def once(config, helper):
    """(seconds to the first step, seconds to the end) of one cold `pe train --max-steps 1`."""
    cache = tempfile.mkdtemp(prefix="pe-cold-")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PE_COMPILE_HELPER="1" if helper else "0")
    start = time.time()
    proc = subprocess.Popen(
        [PE, "train", config, "--max-steps", "1", "--out", os.path.join(cache, "run")],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    first = None
    for line in proc.stdout:
        if first is None and line.startswith("train epoch"):
            first = time.time() - start
    proc.wait()
    total = time.time() - start
    shutil.rmtree(cache, ignore_errors=True)
    if proc.returncode or first is None:
        sys.exit(f"cold_start: pe train failed (exit {proc.returncode})")
    return first, total


def end_to_end(tree, config, cold):
    """(wall seconds, CPU seconds of the pe process, load average) of one `pe train --max-steps 1` of
    the checkout ``tree``, cold (an empty NUMBA_CACHE_DIR) or with the tree's warm cache."""
    scratch = tempfile.mkdtemp(prefix="pe-e2e-")
    env = dict(os.environ, PYTHONPATH=tree)
    env.pop("NUMBA_CACHE_DIR", None)
    if cold:
        env["NUMBA_CACHE_DIR"] = os.path.join(scratch, "cache")
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    proc = subprocess.run(
        [PE, "train", config, "--max-steps", "1", "--out", os.path.join(scratch, "run")],
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    wall = time.time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(scratch, ignore_errors=True)
    if proc.returncode:
        sys.exit(f"cold_start: pe train in {tree} failed (exit {proc.returncode}): {proc.stderr[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), load


def main_end_to_end(args):
    trees = [REPO] + [os.path.abspath(t) for t in args.tree]
    runs = {(t, cold): [] for t in trees for cold in (True, False)}
    for _ in range(args.rounds):
        for key in runs:
            runs[key].append(end_to_end(key[0], args.config, key[1]))
    for (tree, cold), got in runs.items():
        walls = "  ".join(f"{w:.2f}" for w, _, _ in got)
        print(
            f"{'cold' if cold else 'warm'} {tree}: wall median {statistics.median(w for w, _, _ in got):.2f} s "
            f"({walls}), CPU median {statistics.median(c for _, c, _ in got):.2f} s, "
            f"load {statistics.median(x for _, _, x in got):.1f}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--config", default="configs/mnist_lenet.yaml")
    parser.add_argument("--busy", action="store_true", help="beside one competing busy process")
    parser.add_argument("--end-to-end", action="store_true", help="the whole command, cold and warm")
    parser.add_argument("--tree", action="append", default=[], help="(--end-to-end) another checkout to compare")
    args = parser.parse_args()
    if args.end_to_end:
        return main_end_to_end(args)
    runs = {True: [], False: []}
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    try:
        for _ in range(args.rounds):
            for helper in (True, False):
                runs[helper].append(once(args.config, helper))
    finally:
        if busy is not None:
            busy.kill()
    for helper, label in ((True, "helper (default)"), (False, "PE_COMPILE_HELPER=0")):
        times = "  ".join(f"{first:.2f}/{total:.2f}" for first, total in runs[helper])
        print(f"{label:<20} first step / end, s: {times}   best first step {min(f for f, _ in runs[helper]):.2f}")
    best = {h: min(f for f, _ in runs[h]) for h in runs}
    print(f"first step, helper / waiting: {best[True] / best[False]:.2f}")


if __name__ == "__main__":
    main()
