"""The cost of check_nan_inf: LeNet-5 (batch 64) training steps with the check off and on, in
one process, alternating rounds; prints the best median of each and their ratio.

    python benchmarks/check_nan_inf.py
"""
import time, numpy as np, pe_cli.fluid as fluid
from pe_cli.executor import nan_check
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.layers.data("x", [1, 28, 28]); y = fluid.layers.data("y", [1], dtype="int64")
    c = fluid.layers.pool2d(fluid.layers.conv2d(x, 6, 5, padding=2, act="relu"), 2, pool_stride=2)
    c = fluid.layers.pool2d(fluid.layers.conv2d(c, 16, 5, act="relu"), 2, pool_stride=2)
    h = fluid.layers.fc(fluid.layers.fc(c, 120, act="relu"), 84, act="relu")
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), y))
    fluid.optimizer.Momentum(0.01, 0.9).minimize(loss)
exe = fluid.Executor(fluid.CPUPlace()); exe.run(startup)
rng = np.random.default_rng(0)
feed = {"x": rng.random((64, 1, 28, 28), dtype=np.float32), "y": rng.integers(0, 10, (64, 1))}
for _ in range(5): exe.run(main, feed=feed, fetch_list=[loss])
best = {False: 1e9, True: 1e9}
for r in range(6):
    for on in (False, True):
        with nan_check.enabled(on):
            t = []
            for _ in range(20):
                s = time.perf_counter(); exe.run(main, feed=feed, fetch_list=[loss]); t.append(time.perf_counter() - s)
        best[on] = min(best[on], float(np.median(t)))
print(f"LeNet-5 batch 64 step: check off {best[False]*1e3:.3f} ms, on {best[True]*1e3:.3f} ms, ratio {best[True]/best[False]:.2f}")
