"""Data-parallel scaling on CPU devices: samples/s of one training step on 1 and 2 devices.

    python benchmarks/parallel_scaling.py                 # LeNet-5, batch 128 (MLP if conv2d is missing)
    python benchmarks/parallel_scaling.py --model mlp --batch 128 --steps 30

BLAS is limited to one thread per device (OPENBLAS_NUM_THREADS=1 etc., set below before numpy is
imported), so N devices use N cores and nothing is oversubscribed; the machine needs >= 2 cores.
Each measurement runs in a fresh subprocess, after warm-up steps; 1 and 2 devices alternate and the
best of the rounds is kept, since other processes may share the machine.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402


def lenet5(fluid, image, label):
    conv1 = fluid.layers.conv2d(image, num_filters=6, filter_size=5, padding=2, act="relu")
    pool1 = fluid.layers.pool2d(conv1, pool_size=2, pool_stride=2)
    conv2 = fluid.layers.conv2d(pool1, num_filters=16, filter_size=5, act="relu")
    pool2 = fluid.layers.pool2d(conv2, pool_size=2, pool_stride=2)
    fc1 = fluid.layers.fc(pool2, size=120, act="relu")
    fc2 = fluid.layers.fc(fc1, size=84, act="relu")
    logits = fluid.layers.fc(fc2, size=10)
    return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))


def mlp(fluid, image, label):
    hidden = fluid.layers.fc(image, size=512, act="relu")
    hidden = fluid.layers.fc(hidden, size=512, act="relu")
    logits = fluid.layers.fc(hidden, size=10)
    return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))


def has_lenet_layers():
    from pe_cli.ops import registry
    return {"conv2d", "pool2d"} <= set(registry.all_op_types())


def measure(model, devices, batch, steps, warmup):
    import numpy as np
    import pe_cli.fluid as fluid

    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        shape = [1, 28, 28] if model == "lenet" else [784]
        image = fluid.layers.data(name="image", shape=shape)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        loss = (lenet5 if model == "lenet" else mlp)(fluid, image, label)
        fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    compiled = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=[fluid.CPUPlace()] * devices)
    rng = np.random.default_rng(0)
    feed = {"image": rng.random([batch] + shape, dtype="float32"),
            "label": rng.integers(0, 10, (batch, 1))}
    for _ in range(warmup):
        exe.run(compiled, feed=feed, fetch_list=[loss.name])
    start = time.perf_counter()
    for _ in range(steps):
        exe.run(compiled, feed=feed, fetch_list=[loss.name])
    return batch * steps / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["lenet", "mlp"], default=None)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3, help="alternating measurements per device count")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    model = args.model or ("lenet" if has_lenet_layers() else "mlp")
    if args.child is not None:
        print(json.dumps(measure(model, args.child, args.batch, args.steps, args.warmup)))
        return
    if model == "lenet" and not has_lenet_layers():
        sys.exit("conv2d/pool2d are not registered yet: use --model mlp")
    print(f"model {model}, global batch {args.batch}, {args.steps} steps per measure, best of {args.rounds} "
          f"alternating rounds, BLAS threads 1 per device, {os.cpu_count()} cores")
    rates = {1: 0.0, 2: 0.0}
    for _ in range(args.rounds):       # alternate, keep the best: the machine may be shared
        for devices in rates:
            out = subprocess.run([sys.executable, __file__, "--model", model, "--batch", str(args.batch),
                                  "--steps", str(args.steps), "--warmup", str(args.warmup), "--child", str(devices)],
                                 check=True, capture_output=True, text=True)
            rates[devices] = max(rates[devices], float(out.stdout.strip().splitlines()[-1]))
    for devices, rate in rates.items():
        print(f"{devices} device(s): {rate:8.1f} samples/s")
    print(f"speed-up with 2 devices: {rates[2] / rates[1]:.2f}x")

if __name__ == "__main__":
    main()
