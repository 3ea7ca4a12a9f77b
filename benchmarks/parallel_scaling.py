"""Data-parallel scaling on CPU devices: samples/s of training steps on 1 and 2 devices.

    python benchmarks/parallel_scaling.py                 # LeNet-5, batch 128 (the MLP if conv2d is missing)
    python benchmarks/parallel_scaling.py --model mlp --batch 128 --rounds 40 --strategy Reduce

BLAS is limited to one thread per device (OPENBLAS_NUM_THREADS=1 etc., set below before numpy is
imported), so N devices use N cores and nothing is oversubscribed; the machine needs >= 2 cores.
The 1- and 2-device executors are built once and measured in short alternating rounds; the best
round of each is kept, so other processes briefly sharing the machine do not decide the result.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import pe_cli.fluid as fluid  # noqa: E402
from pe_cli.ops import registry  # noqa: E402


def lenet5(image, label):
    conv1 = fluid.layers.conv2d(image, num_filters=6, filter_size=5, padding=2, act="relu")
    pool1 = fluid.layers.pool2d(conv1, pool_size=2, pool_stride=2)
    conv2 = fluid.layers.conv2d(pool1, num_filters=16, filter_size=5, act="relu")
    pool2 = fluid.layers.pool2d(conv2, pool_size=2, pool_stride=2)
    fc1 = fluid.layers.fc(pool2, size=120, act="relu")
    fc2 = fluid.layers.fc(fc1, size=84, act="relu")
    logits = fluid.layers.fc(fc2, size=10)
    return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))


def mlp(image, label):
    hidden = fluid.layers.fc(image, size=512, act="relu")
    hidden = fluid.layers.fc(hidden, size=512, act="relu")
    logits = fluid.layers.fc(hidden, size=10)
    return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))


def has_lenet_layers():
    return {"conv2d", "pool2d"} <= set(registry.all_op_types())


def trainer(model, devices, batch, reduce_strategy="AllReduce"):
    """A step function training ``model`` data-parallel on ``devices`` CPU devices."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        shape = [1, 28, 28] if model == "lenet" else [784]
        image = fluid.layers.data(name="image", shape=shape)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        loss = (lenet5 if model == "lenet" else mlp)(image, label)
        fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    build_strategy = fluid.BuildStrategy()
    build_strategy.reduce_strategy = reduce_strategy
    compiled = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=build_strategy, places=[fluid.CPUPlace()] * devices
    )
    rng = np.random.default_rng(0)
    feed = {"image": rng.random([batch] + shape, dtype="float32"), "label": rng.integers(0, 10, (batch, 1))}
    return lambda: exe.run(compiled, feed=feed, fetch_list=[loss.name], scope=scope)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["lenet", "mlp"], default=None)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--steps", type=int, default=5, help="steps per round")
    parser.add_argument("--rounds", type=int, default=30, help="alternating rounds per device count")
    parser.add_argument(
        "--strategy", choices=["AllReduce", "Reduce"], default="AllReduce", help="BuildStrategy.reduce_strategy"
    )
    args = parser.parse_args()
    model = args.model or ("lenet" if has_lenet_layers() else "mlp")
    if model == "lenet" and not has_lenet_layers():
        sys.exit("conv2d/pool2d are not registered yet: use --model mlp")
    steps = {n: trainer(model, n, args.batch, args.strategy) for n in (1, 2)}
    for step in steps.values():
        for _ in range(3):
            step()  # warm-up
    best = {n: 0.0 for n in steps}
    for _ in range(args.rounds):
        for n, step in steps.items():
            start = time.perf_counter()
            for _ in range(args.steps):
                step()
            best[n] = max(best[n], args.batch * args.steps / (time.perf_counter() - start))
    print(
        f"model {model}, global batch {args.batch}, {args.strategy}, best of {args.rounds} alternating rounds of {args.steps} "
        f"steps, BLAS threads 1 per device, {os.cpu_count()} cores"
    )
    for n, rate in best.items():
        print(f"{n} device(s): {rate:8.1f} samples/s")
    print(f"speed-up with 2 devices: {best[2] / best[1]:.2f}x")


if __name__ == "__main__":
    main()
