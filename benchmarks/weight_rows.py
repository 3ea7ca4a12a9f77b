"""Where a weight's cache lines live: one layer's forward GEMM, weight gradient and momentum update,
with the forward split by rows of the batch (both threads read the whole weight) and by blocks of the
inner dimension (each thread reads only its own rows of the weight: gemm.split_mode's INNER), both
forced whatever split_mode would choose, in turn, in one process. Each line gives the three
kernels' medians over ``--reps`` sequences and their sum; pe's mul, mul_grad_y and momentum
kernels, as a step calls them.

    .venv/bin/python benchmarks/weight_rows.py                 # the MLP's first layer, batch 128
    .venv/bin/python benchmarks/weight_rows.py --shape 256,4096,4096 --reps 20      # the wide MLP's

The update writes the weight in place; where the other core read it during the forward product, its
lines must first be taken from that core's cache (linalg.split_mode's docstring has the figures).
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="128,784,256", help="batch,inputs,outputs of the layer")
    parser.add_argument("--reps", type=int, default=400)
    args = parser.parse_args()
    batch, k, n = (int(v) for v in args.shape.split(","))
    import numpy as np
    from pe_cli.kernels.cpu import gemm as kmath, optimizer
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry
    from pe_cli.kernels.cpu.runtime import threads

    threads.use_devices(1)
    rng = np.random.default_rng(0)
    x = rng.random((batch, k), dtype=np.float32)
    dout = rng.random((batch, n), dtype=np.float32)
    w = rng.random((k, n), dtype=np.float32)
    velocity = np.zeros_like(w)
    lr = np.array([1e-6], dtype=np.float32)
    update = {"mu": 0.9, "use_nesterov": False, "_update_in_place": True}
    attrs = {"x_num_col_dims": 1, "y_num_col_dims": 1}
    rule = kmath.split_mode
    print(
        f"layer [{batch}, {k}] x [{k}, {n}], {threads.kernel_threads()} thread(s); pe's forward splits "
        f"{rule(batch, n, k, kmath.INNER)}; medians over {args.reps} sequences, us"
    )

    def forced(inner):  # linalg.split_mode, with the forward's choice made here
        return lambda m_, n_, k_, weight_rows=None: (
            (kmath.INNER if inner else kmath.ROWS) if weight_rows == kmath.INNER else rule(m_, n_, k_, weight_rows)
        )

    def sequence(inner):
        kmath.split_mode = forced(inner)
        t0 = time.perf_counter()
        registry.get("mul").kernel("cpu")({"X": x, "Y": w}, attrs)
        t1 = time.perf_counter()
        dy_only = KernelContext(outputs=frozenset({"Y@GRAD"}))
        grad = registry.get("mul_grad").kernel("cpu")({"X": x, "Y": w, "Out@GRAD": dout}, attrs, dy_only)["Y@GRAD"]
        t2 = time.perf_counter()
        optimizer.momentum({"Param": w, "Grad": grad, "Velocity": velocity, "LearningRate": lr}, update)
        t3 = time.perf_counter()
        kmath.split_mode = rule
        return t1 - t0, t2 - t1, t3 - t2

    times = {False: [], True: []}
    for _ in range(args.reps // 10 + 1):  # warm-up, compiling
        sequence(False), sequence(True)
    for _ in range(args.reps):  # alternating, so that a busy moment hits both
        for inner in (False, True):
            times[inner].append(sequence(inner))
    for inner, label in ((False, "forward by rows of the batch"), (True, "forward by blocks of k     ")):
        fwd, grad, upd = (1e6 * np.median(col) for col in zip(*times[inner]))
        print(
            f"{label}  forward {fwd:8.1f}  weight gradient {grad:8.1f}  momentum {upd:8.1f}  "
            f"sum {fwd + grad + upd:8.1f}"
        )


if __name__ == "__main__":
    main()
