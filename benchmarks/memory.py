"""Peak memory and step time with and without the memory_optimize pass, in one run:

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

kind, optimize, steps, devices = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4])

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
if optimize:
    fluid.memory_optimize(main)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
prog = main
if devices > 1:
    prog = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=fluid.cpu_places(devices))
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


def measure(kind, optimize, steps, devices):
    env = dict(os.environ, CPU_NUM=str(devices))
    out = subprocess.run([sys.executable, "-c", CHILD, kind, "1" if optimize else "0", str(steps), str(devices)],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--devices", type=int, default=1)
    args = parser.parse_args()
    print(f"{'case':<14}{'peak MB off':>12}{'peak MB on':>12}{'ratio':>8}{'step s off':>12}{'step s on':>11}"
          f"  same losses")
    for kind in CASES:
        off = measure(kind, False, args.steps, args.devices)
        on = measure(kind, True, args.steps, args.devices)
        ratio = on["peak"] / off["peak"] if off["peak"] else float("nan")
        print(f"{kind:<14}{off['peak'] / 2**20:>12.1f}{on['peak'] / 2**20:>12.1f}{ratio:>8.2f}"
              f"{off['step']:>12.3f}{on['step']:>11.3f}  {off['losses'] == on['losses']}")


if __name__ == "__main__":
    main()
