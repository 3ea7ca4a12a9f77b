"""Step time of two pe source trees side by side, in one run: did a change make pe slower?

    python benchmarks/ab_trees.py OLD_TREE NEW_TREE [--rounds 5] [--steps 30]

Each round runs a fresh process per tree (alternating, so both see the same machine load) that
trains the MLP 784-256-256-10 (batch 128) and LeNet-5 (batch 64) on 1 device and on 2 devices
(ParallelExecutor, CPU_NUM=2), and prints the median step time of each; the table gives the best
round of each tree and their ratio (new / old). A tree is a checkout (``git worktree add``).
"""

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
import pe_cli.fluid as fluid

def model(kind):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        if kind == "mlp":
            x = fluid.layers.data("x", [784])
            h = fluid.layers.fc(fluid.layers.fc(x, 256, act="relu"), 256, act="relu")
        else:
            x = fluid.layers.data("x", [1, 28, 28])
            c = fluid.layers.pool2d(fluid.layers.conv2d(x, 6, 5, padding=2, act="relu"), 2, pool_stride=2)
            c = fluid.layers.pool2d(fluid.layers.conv2d(c, 16, 5, act="relu"), 2, pool_stride=2)
            h = fluid.layers.fc(fluid.layers.fc(c, 120, act="relu"), 84, act="relu")
        y = fluid.layers.data("y", [1], dtype="int64")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), y))
        fluid.optimizer.Momentum(0.01, 0.9).minimize(loss)
    return main, startup, loss

def bench(kind, batch, devices, steps):
    main, startup, loss = model(kind)
    scope = fluid.core.Scope() if hasattr(fluid.core, "Scope") else None
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        shape = (batch, 784) if kind == "mlp" else (batch, 1, 28, 28)
        rng = np.random.default_rng(0)
        feed = {"x": rng.random(shape, dtype=np.float32), "y": rng.integers(0, 10, (batch, 1))}
        if devices > 1:
            runner = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main)
            run = lambda: runner.run([loss.name], feed=feed)
        else:
            run = lambda: exe.run(main, feed=feed, fetch_list=[loss])
        for _ in range(5):
            run()
        times = []
        for _ in range(steps):
            t = time.perf_counter(); run(); times.append(time.perf_counter() - t)
    return float(np.median(times))

steps = int(sys.argv[1])
out = {}
for kind, batch in (("mlp", 128), ("lenet", 64)):
    for devices in (1, 2):
        out[f"{kind} b{batch} x{devices}"] = bench(kind, batch, devices, steps)
print(json.dumps(out))
"""


def run_tree(tree, steps):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree), CPU_NUM="2")
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(steps)], env=env, cwd=tree, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        sys.exit(f"{tree}: the benchmark failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    best = {args.old: {}, args.new: {}}
    for r in range(args.rounds):
        for tree in (args.old, args.new) if r % 2 == 0 else (args.new, args.old):
            for case, seconds in run_tree(tree, args.steps).items():
                best[tree][case] = min(seconds, best[tree].get(case, float("inf")))
    print(f"{'case':<18}{'old ms':>10}{'new ms':>10}{'new/old':>10}")
    for case in best[args.old]:
        old, new = best[args.old][case] * 1e3, best[args.new][case] * 1e3
        print(f"{case:<18}{old:>10.3f}{new:>10.3f}{new / old:>10.2f}")


if __name__ == "__main__":
    main()
