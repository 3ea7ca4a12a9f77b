"""Step time of a large-vocabulary model with a dense against a row-sparse embedding gradient, side by
side in one run, on a quiet machine and again with one competing busy process:

    python benchmarks/sparse_embedding.py [--steps 20] [--optimizers sgd,adagrad,adam_lazy,adam] [--place cpu|cuda]

The model: 64 sequences of 20 ids from a vocabulary of 100,000 -> embedding 64 -> sequence_pool
(sum) -> fc 2 -> softmax cross-entropy -> mean. For each optimizer it builds the model twice (same
seed), with embedding(is_sparse=False) and is_sparse=True, and runs them in turns, one step each
(a new batch of ids every step, the same for both), so a change of the machine's load falls on both
alike. It prints the median step time of each after 3 warm-up steps, dense / sparse, and whether
the two trainings gave the same losses (they must for SGD, Adagrad and Adam without lazy_mode;
lazy Adam moves fewer rows by design, so its losses differ).
"""

import argparse
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

import pe_cli.fluid as fluid

VOCAB, DIM, SEQS, LENGTH = 100_000, 64, 64, 20
OPTIMIZERS = {
    "sgd": lambda: fluid.optimizer.SGD(0.1),
    "adagrad": lambda: fluid.optimizer.Adagrad(0.1),
    "adam_lazy": lambda: fluid.optimizer.Adam(0.01, lazy_mode=True),
    "adam": lambda: fluid.optimizer.Adam(0.01),
    "momentum": lambda: fluid.optimizer.Momentum(0.1, 0.9),
}


def build(sparse, optimizer):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        ids = fluid.layers.data("ids", [1], dtype="int64", lod_level=1)
        label = fluid.layers.data("label", [1], dtype="int64")
        emb = fluid.layers.embedding(ids, size=[VOCAB, DIM], is_sparse=sparse)
        logits = fluid.layers.fc(fluid.layers.sequence_pool(emb, "sum"), 2)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        OPTIMIZERS[optimizer]().minimize(loss)
    return main, startup, loss


def feeds(steps, place):
    rng = np.random.default_rng(0)
    return [
        {
            "ids": fluid.create_lod_tensor(
                rng.integers(0, VOCAB, (SEQS * LENGTH, 1)).astype("int64"), [[LENGTH] * SEQS], place
            ),
            "label": rng.integers(0, 2, (SEQS, 1)).astype("int64"),
        }
        for _ in range(steps)
    ]


def measure(optimizer, steps, place):
    runs = {}
    for name, sparse in (("dense", False), ("sparse", True)):
        main, startup, loss = build(sparse, optimizer)
        scope, exe = fluid.Scope(), fluid.Executor(place)
        exe.run(startup, scope=scope)

        def run(feed, program=main, scope=scope, exe=exe, loss=loss):
            return exe.run(program, feed=feed, fetch_list=[loss], scope=scope)[0]

        runs[name] = run
    times, losses = {n: [] for n in runs}, {n: [] for n in runs}
    for step, feed in enumerate(feeds(3 + steps, place)):
        for name, run in runs.items():
            start = time.perf_counter()
            losses[name].append(float(run(feed)))
            if step >= 3:
                times[name].append(time.perf_counter() - start)
    same = bool(np.allclose(losses["dense"], losses["sparse"], rtol=1e-5))
    return {n: statistics.median(t) for n, t in times.items()}, same


def phase(args, place):
    for optimizer in args.optimizers.split(","):
        medians, same = measure(optimizer, args.steps, place)
        print(
            f"  {optimizer:<10} dense {medians['dense'] * 1e3:8.2f} ms   sparse {medians['sparse'] * 1e3:8.2f} ms   "
            f"dense/sparse {medians['dense'] / medians['sparse']:5.2f}   same losses={same}",
            flush=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--optimizers", default="sgd,adagrad,adam_lazy,adam")
    parser.add_argument("--place", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--quiet-only", action="store_true", help="skip the phase with a competing busy process")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    place = fluid.CUDAPlace(0) if args.place == "cuda" else fluid.CPUPlace()
    print(
        f"vocabulary {VOCAB:,}, embedding {DIM}, {SEQS} sequences x {LENGTH} ids; median step time after 3 "
        f"warm-up steps ({args.steps} steps) on {args.place}"
    )
    print("quiet machine:")
    phase(args, place)
    if args.quiet_only:
        return
    competitor = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        print("with one competing busy process:")
        phase(args, place)
    finally:
        competitor.kill()


if __name__ == "__main__":
    main()
