"""Peak memory and step time without and with the memory_optimize pass (and with enable_inplace
added), in one run:

    python benchmarks/memory.py [--steps 5] [--devices 1]

Each case runs in a fresh process (so one case's freed-but-kept heap cannot hide another's growth):
it builds the model, runs one warm-up step, gives freed heap back to the system (malloc_trim),
resets the process's peak resident set (/proc/self/clear_refs), runs the steps and reports the
peak resident set growth over the steps (VmHWM minus VmRSS before them) and the median step time.
Cases: the 10-layer MLP of width 1024 at batch 2048, forward only and training (SGD), and LeNet-5
training at batch 512. Linux only (it reads /proc).
"""

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import ctypes, json, sys, time
import numpy as np
import pe_cli.fluid as fluid

kind, mode, steps, devices = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024

def model():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        if kind.startswith("mlp"):
            batch, shape = 2048, [1024]
            h = x = fluid.data("x", [-1, 1024])
            for _ in range(10):
                h = fluid.layers.fc(h, 1024, act="relu")
        else:
            batch, shape = 512, [1, 28, 28]
            x = fluid.data("x", [-1, 1, 28, 28])
            c = fluid.layers.pool2d(fluid.layers.conv2d(x, 6, 5, padding=2, act="relu"), 2, pool_stride=2)
            c = fluid.layers.pool2d(fluid.layers.conv2d(c, 16, 5, act="relu"), 2, pool_stride=2)
            h = fluid.layers.fc(fluid.layers.fc(c, 120, act="relu"), 84, act="relu")
        y = fluid.data("y", [-1, 1], dtype="int64")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), y))
        if kind != "mlp-forward":
            fluid.optimizer.SGD(0.001).minimize(loss)
    return main, startup, loss, batch, shape

main, startup, loss, batch, shape = model()
if mode == "memory":
    fluid.memory_optimize(main)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
prog = main
if devices > 1 or mode == "inplace":
    strategy = fluid.BuildStrategy()
    strategy.memory_optimize = strategy.enable_inplace = mode == "inplace"
    prog = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, build_strategy=strategy,
                                                          places=fluid.cpu_places(devices))
rng = np.random.default_rng(0)
feed = {"x": rng.standard_normal([batch] + shape).astype("float32"),
        "y": rng.integers(0, 10, (batch, 1)).astype("int64")}
exe.run(prog, feed=feed, fetch_list=[loss])
ctypes.CDLL("libc.so.6").malloc_trim(0)
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
base = status("VmRSS")
times, losses = [], []
for _ in range(steps):
    t = time.perf_counter()
    losses.append(float(np.mean(exe.run(prog, feed=feed, fetch_list=[loss])[0])))
    times.append(time.perf_counter() - t)
print(json.dumps({"peak": status("VmHWM") - base, "step": sorted(times)[len(times) // 2], "losses": losses}))
"""

CASES = ("mlp-forward", "mlp-train", "lenet-train")


def measure(kind, mode, steps, devices):
    env = dict(os.environ, CPU_NUM=str(devices))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, mode, str(steps), str(devices)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8)  # past the scheduler's calibration runs
    parser.add_argument("--devices", type=int, default=1)
    args = parser.parse_args()
    print(
        "peak: resident set growth during the steps (MB); step: median seconds; 'memory': "
        "memory_optimize, '+inplace': memory_optimize and enable_inplace"
    )
    print(
        f"{'case':<14}{'off':>8}{'memory':>8}{'ratio':>7}{'+inplace':>9}{'ratio':>7}"
        f"{'step off':>10}{'memory':>8}{'+inplace':>9}  same losses"
    )
    for kind in CASES:
        off, on, both = (measure(kind, mode, args.steps, args.devices) for mode in ("off", "memory", "inplace"))
        mb = [r["peak"] / 2**20 for r in (off, on, both)]
        print(
            f"{kind:<14}{mb[0]:>8.1f}{mb[1]:>8.1f}{mb[1] / mb[0]:>7.2f}{mb[2]:>9.1f}{mb[2] / mb[0]:>7.2f}"
            f"{off['step']:>10.3f}{on['step']:>8.3f}{both['step']:>9.3f}"
            f"  {off['losses'] == on['losses'] == both['losses']}"
        )


if __name__ == "__main__":
    main()
