"""Does one CPU device use every core it is given? Its step against the same step on 2 devices.

    python benchmarks/one_device_threads.py                      # the Transformer of issue 79
    python benchmarks/one_device_threads.py --model mlp --rounds 10
    python benchmarks/one_device_threads.py --profile            # per-op kernel ms, 1 vs 2 devices
    python benchmarks/one_device_threads.py --coverage --configs 1   # which ops ran a parallel loop

Models: ``transformer``: token ids [32, 64] (vocabulary 1000) -> embedding 128 -> sinusoidal positions
-> 2 post-norm encoder layers (d_model 128, 4 heads, feed-forward 512, relu, dropout 0) -> the mean
over the tokens -> fc 2; Adam. ``mlp``: 784-256-256-10, batch 128, momentum SGD. ``lenet``: LeNet-5,
batch 64, momentum SGD. Both device counts are built in one process and timed in alternating rounds
(``--steps`` steps each; their wall time over the steps), so a change of the machine's load falls on
both; each round prints the load average, and the summary the median and best of each and the
median of the per-round ratios (1 device / 2 devices). The thread rule (pe_cli/kernels/cpu/runtime/threads.py)
is pe's default unless PE_DEVICE_THREADS is set.
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402

import pe_cli.fluid as fluid  # noqa: E402
from pe_cli.kernels.cpu.runtime import threads  # noqa: E402

SEQ, VOCAB, D_MODEL, HEADS, FFN = 64, 1000, 128, 4, 512


FLUID_LAYERS = False


def _fluid_encoder_layer(x):
    """A post-norm encoder layer as a Fluid 1.8 program writes it (fc, reshape2, transpose2, matmul,
    softmax, layer_norm), the way a Fluid 1.8.5 model builds one without pe's transformer_encoder."""
    L = fluid.layers
    dk = D_MODEL // HEADS

    def heads(t):
        return L.transpose(L.reshape(t, [0, 0, HEADS, dk]), [0, 2, 1, 3])

    q, k, v = (heads(L.fc(x, D_MODEL, num_flatten_dims=2)) for _ in range(3))
    w = L.softmax(L.matmul(q, k, transpose_y=True, alpha=dk**-0.5))
    a = L.reshape(L.transpose(L.matmul(w, v), [0, 2, 1, 3]), [0, 0, D_MODEL])
    x = L.layer_norm(L.elementwise_add(x, L.fc(a, D_MODEL, num_flatten_dims=2)), begin_norm_axis=2)
    f = L.fc(L.fc(x, FFN, num_flatten_dims=2, act="relu"), D_MODEL, num_flatten_dims=2)
    return L.layer_norm(L.elementwise_add(x, f), begin_norm_axis=2)


def _transformer():
    ids = fluid.layers.data(name="ids", shape=[SEQ], dtype="int64")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    h = fluid.layers.embedding(ids, size=[VOCAB, D_MODEL])
    h = fluid.layers.add_position_encoding(h, 1.0, 1.0)
    for _ in range(2):
        h = (
            _fluid_encoder_layer(h)
            if FLUID_LAYERS
            else fluid.layers.transformer_encoder(h, 1, D_MODEL, HEADS, FFN, dropout=0.0)
        )
    logits = fluid.layers.fc(fluid.layers.reduce_mean(h, dim=1), 2)
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
    return (
        loss,
        fluid.optimizer.Adam(0.001),
        lambda rng, b: {"ids": rng.integers(0, VOCAB, (b, SEQ)), "label": rng.integers(0, 2, (b, 1))},
    )


def _dense(model):
    shape = [1, 28, 28] if model == "lenet" else [784]
    image = fluid.layers.data(name="image", shape=shape)
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    if model == "lenet":
        h = fluid.layers.conv2d(image, num_filters=6, filter_size=5, padding=2, act="relu")
        h = fluid.layers.pool2d(h, pool_size=2, pool_stride=2)
        h = fluid.layers.conv2d(h, num_filters=16, filter_size=5, act="relu")
        h = fluid.layers.pool2d(h, pool_size=2, pool_stride=2)
        dims = (120, 84)
    else:
        h, dims = image, (256, 256)
    for size in dims:
        h = fluid.layers.fc(h, size=size, act="relu")
    logits = fluid.layers.fc(h, size=10)
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
    return (
        loss,
        fluid.optimizer.Momentum(0.01, 0.9),
        lambda rng, b: {"image": rng.random([b] + shape, dtype="float32"), "label": rng.integers(0, 10, (b, 1))},
    )


BATCH = {"transformer": 32, "mlp": 128, "lenet": 64}


def trainer(model, devices):
    """A step function on ``devices`` CPU devices (1: Executor), the same weights and batch."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        loss, optimizer, batch = _transformer() if model == "transformer" else _dense(model)
        optimizer.minimize(loss)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    program = (
        main
        if devices == 1
        else fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[fluid.CPUPlace()] * devices)
    )
    feed = batch(np.random.default_rng(0), BATCH[model])
    return lambda: exe.run(program, feed=feed, fetch_list=[loss.name], scope=scope)


def _profile(steps, n):
    from pe_cli.base import profiler

    for devices, step in steps.items():
        _configure(devices)
        with profiler.collect() as prof:
            for _ in range(n):
                step()
        print(f"--- {devices} device(s), {n} steps: {prof.summary()}")
        print("\n".join(prof.table("total").splitlines()[:25]))


def _coverage(step, n):
    """Per op type: the ms a step of one device on 2 threads (PE_DEVICE_THREADS=2, the quiet machine's
    rule) spends in it, and how many of its calls ran a parallel loop: _numba.parallel_ready wrapped
    where the kernels call it, its answers counted against the op the profiler has open."""
    import collections
    from pe_cli.base import profiler
    from pe_cli.kernels.cpu.runtime import loops as _numba

    ready, parallel = _numba.parallel_ready, collections.Counter()

    def counted(twin, *args):
        ok = ready(twin, *args)
        stack = getattr(profiler.active()._local, "open_kernels", None)
        if ok and stack:
            parallel[stack[-1]] += 1
        return ok

    for module in [m for name, m in sys.modules.items() if name.startswith("pe_cli.kernels.cpu")]:
        if getattr(module, "parallel_ready", None) is ready:
            module.parallel_ready = counted
    _configure("1x2")
    with profiler.collect() as prof:
        for _ in range(n):
            step()
    print(f"1 device, 2 threads, {n} steps: {prof.summary()}")
    serial = 0.0
    for op, (calls, total, _, _) in sorted(prof.ops.items(), key=lambda kv: -kv[1][1]):
        serial += total / n * 1e3 if not parallel[op] else 0.0
        print(f"{op:34s} {calls / n:5.1f} calls {total / n * 1e3:8.3f} ms  parallel loops {parallel[op] / n:5.1f}")
    print(f"ops that ran no parallel loop: {serial:.2f} ms a step")


def _configure(config):
    """``config`` "1", "2": that many devices under pe's rule; "1x2": 1 device, PE_DEVICE_THREADS=2."""
    devices, _, fixed = config.partition("x")
    if fixed:
        os.environ["PE_DEVICE_THREADS"] = fixed
    else:
        os.environ.pop("PE_DEVICE_THREADS", None)
    threads.refresh()
    return int(devices)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(BATCH), default="transformer")
    parser.add_argument("--steps", type=int, default=5, help="steps per round")
    parser.add_argument("--rounds", type=int, default=8, help="alternating rounds")
    parser.add_argument(
        "--configs",
        default="1,2",
        help="devices under pe's rule (1, 2) or with fixed threads (1x2: PE_DEVICE_THREADS=2)",
    )
    parser.add_argument("--profile", action="store_true", help="print each configuration's op table")
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="which ops of one device's step (2 threads) ran a parallel loop, and their ms",
    )
    parser.add_argument(
        "--fluid-layers",
        action="store_true",
        help="the Transformer's layers from Fluid 1.8's ops, not transformer_encoder",
    )
    args = parser.parse_args()
    global FLUID_LAYERS
    FLUID_LAYERS = args.fluid_layers
    configs = args.configs.split(",")
    built = {n: trainer(args.model, n) for n in {int(c.partition("x")[0]) for c in configs}}
    steps = {c: built[int(c.partition("x")[0])] for c in configs}
    for c, step in steps.items():
        _configure(c)
        for _ in range(5):
            step()  # warm-up (and the data-parallel scheduler's calibration)
    if args.profile or args.coverage:
        _coverage(steps[configs[0]], args.steps) if args.coverage else _profile(steps, args.steps)
        return
    times = {c: [] for c in configs}
    for r in range(args.rounds):
        shares = {}
        for c in configs if r % 2 == 0 else configs[::-1]:
            _configure(c)
            start = time.perf_counter()
            for _ in range(args.steps):
                steps[c]()
            times[c].append((time.perf_counter() - start) / args.steps * 1e3)
            shares[c] = threads.kernel_threads()
        print(
            f"round {r}: "
            + ", ".join(f"{c} {times[c][-1]:7.2f} ms ({shares[c]} thr)" for c in configs)
            + f", load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    os.environ.pop("PE_DEVICE_THREADS", None)
    print(f"{args.model}{' (Fluid layers)' if FLUID_LAYERS else ''}: {threads.describe(1)}")
    for c, t in times.items():
        print(f"{c}: median {statistics.median(t):.2f} ms, best {min(t):.2f} ms")
    for c in configs:
        if c != configs[-1]:
            ratios = [a / b for a, b in zip(times[c], times[configs[-1]])]
            print(
                f"{c} / {configs[-1]}: median of the rounds' ratios {statistics.median(ratios):.2f}, "
                f"best over best {min(times[c]) / min(times[configs[-1]]):.2f}"
            )


if __name__ == "__main__":
    main()
