"""A first `pe train` on a machine: time to the first training step with an empty numba cache, with
the compile helper (the default) and without it (PE_COMPILE_HELPER=0: every loop compiled before the
step), the two alternating so that the machine's load falls on both alike.

    .venv/bin/python benchmarks/cold_start.py [--rounds 3] [--config configs/mnist_lenet.yaml] [--busy]

--busy runs every configuration beside one competing busy process (``while True: pass``).

Each run gets a new empty NUMBA_CACHE_DIR (removed afterwards) and trains one step; printed: each
run's seconds to its first "train epoch" line and to its end, the best of each, and their ratio.
"""
import argparse
import os
import shutil
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
    proc = subprocess.Popen([PE, "train", config, "--max-steps", "1", "--out", os.path.join(cache, "run")], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--config", default="configs/mnist_lenet.yaml")
    parser.add_argument("--busy", action="store_true", help="beside one competing busy process")
    args = parser.parse_args()
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
