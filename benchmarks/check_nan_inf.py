"""The cost of check_nan_inf: LeNet-5 (batch 64) training steps with the check off and on, in
one process, alternating rounds; prints the best median of each and their ratio.

    python benchmarks/check_nan_inf.py
"""

import time

import numpy as np

import pe_cli.fluid as fluid
from pe_cli.executor import nan_check


def lenet5():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [1, 28, 28])
        y = fluid.layers.data("y", [1], dtype="int64")
        c = fluid.layers.pool2d(fluid.layers.conv2d(x, 6, 5, padding=2, act="relu"), 2, pool_stride=2)
        c = fluid.layers.pool2d(fluid.layers.conv2d(c, 16, 5, act="relu"), 2, pool_stride=2)
        h = fluid.layers.fc(fluid.layers.fc(c, 120, act="relu"), 84, act="relu")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), y))
        fluid.optimizer.Momentum(0.01, 0.9).minimize(loss)
    return main, startup, loss


def main():
    program, startup, loss = lenet5()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(0)
    feed = {"x": rng.random((64, 1, 28, 28), dtype=np.float32), "y": rng.integers(0, 10, (64, 1))}
    for _ in range(5):
        exe.run(program, feed=feed, fetch_list=[loss])
    best = {False: 1e9, True: 1e9}
    for _ in range(6):
        for on in (False, True):
            with nan_check.enabled(on):
                times = []
                for _ in range(20):
                    start = time.perf_counter()
                    exe.run(program, feed=feed, fetch_list=[loss])
                    times.append(time.perf_counter() - start)
            best[on] = min(best[on], float(np.median(times)))
    print(
        f"LeNet-5 batch 64 step: check off {best[False] * 1e3:.3f} ms, on {best[True] * 1e3:.3f} ms, "
        f"ratio {best[True] / best[False]:.2f}"
    )


if __name__ == "__main__":
    main()
