"""Step time without and with the fusion options of BuildStrategy, in one run:

    python benchmarks/fusion.py [--steps 20] [--devices 1 2]

For each model and device count it builds one CompiledProgram per setting (same seed, same batch)
and runs them in turns, one step each, so a change of the machine's load falls on every setting
alike; it prints the median step time of each, its ratio to the unfused one, and whether every
setting gave the same losses. Settings: off; fuse_gemm_epilogue ('gemm': each fc layer's bias
and relu in its GEMM); fuse_elewise_add_act_ops ('add+act');
fuse_bn_act_ops ('bn+act', the conv net only); fuse_all_reduce_ops ('allreduce', 2 devices or
more); fuse_all_optimizer_ops ('optimizer': the model's sgd updates, 14, 12 and 34, in one op);
enable_auto_fusion ('auto': each bias add + relu in one fusion_group op);
enable_backward_optimizer_op_deps ('opdeps': the updates chained after the backward pass); all the
fusions ('all'). Models: an MLP of 6 layers of width 1024 (relu) at batch 1024; a conv
net (two conv 3x3 + batch_norm(relu) + pool blocks, 16 and 32 channels, then fc) on 1x28x28 at batch
256; a narrow MLP (16 layers of width 64, relu) at batch 64, whose steps are many small ops. SGD. Timed steps follow 3 warm-up steps (past the scheduler's calibration runs). The kernels'
threads per device are fixed (PE_DEVICE_THREADS: cores / devices unless set), not following the
machine's load, so that every setting sums in the same chunks and the losses compare to the bit.
"""

import argparse
import os
import statistics
import time
import warnings

import numpy as np

import pe_cli.fluid as fluid
from pe_cli.kernels.cpu.runtime import threads

FLAGS = {
    "gemm": ("fuse_gemm_epilogue",),
    "add+act": ("fuse_elewise_add_act_ops",),
    "bn+act": ("fuse_bn_act_ops",),
    "allreduce": ("fuse_all_reduce_ops",),
    "optimizer": ("fuse_all_optimizer_ops",),
    "auto": ("enable_auto_fusion",),
    "opdeps": ("enable_backward_optimizer_op_deps",),
    "all": (
        "fuse_gemm_epilogue",
        "fuse_elewise_add_act_ops",
        "fuse_bn_act_ops",
        "fuse_all_reduce_ops",
        "fuse_all_optimizer_ops",
        "enable_auto_fusion",
    ),
}


def mlp(x):
    h = x
    for _ in range(6):
        h = fluid.layers.fc(h, 1024, act="relu")
    return h


def conv_bn(x):
    h = x
    for channels in (16, 32):
        h = fluid.layers.conv2d(h, channels, 3, padding=1)
        h = fluid.layers.batch_norm(h, act="relu")
        h = fluid.layers.pool2d(h, 2, pool_stride=2)
    return fluid.layers.fc(h, 64, act="relu")


def narrow(x):
    h = x
    for _ in range(16):
        h = fluid.layers.fc(h, 64, act="relu")
    return h


MODELS = {"mlp": (mlp, [1024], 1024), "conv_bn": (conv_bn, [1, 28, 28], 256), "narrow": (narrow, [64], 64)}


def build(model):
    body, shape, batch = MODELS[model]
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [-1] + shape)
        y = fluid.data("y", [-1, 1], dtype="int64")
        logits = fluid.layers.fc(body(x), 10)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        fluid.optimizer.SGD(0.01).minimize(loss)
    return main, startup, loss, shape, batch


def settings(model, devices):
    names = ["off", "gemm", "add+act"]
    if model == "conv_bn":
        names.append("bn+act")
    if devices > 1:
        names.append("allreduce")
    return names + ["optimizer", "auto", "opdeps", "all"]


def prepare(model, devices, name):
    main, startup, loss, shape, batch = build(model)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    for flag in FLAGS.get(name, ()):
        setattr(strategy, flag, True)
    program = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=fluid.cpu_places(devices)
    )
    rng = np.random.default_rng(0)
    feed = {
        "x": rng.standard_normal([batch] + shape).astype("float32"),
        "y": rng.integers(0, 10, (batch, 1)).astype("int64"),
    }
    return lambda: exe.run(program, feed=feed, fetch_list=[loss], scope=scope)[0]


def measure(model, devices, steps):
    names = settings(model, devices)
    runs = {name: prepare(model, devices, name) for name in names}
    times = {name: [] for name in names}
    losses = {name: [] for name in names}
    for step in range(3 + steps):
        for name in names:
            start = time.perf_counter()
            losses[name].append(np.asarray(runs[name]()).copy())
            if step >= 3:
                times[name].append(time.perf_counter() - start)
    same = all(all(np.array_equal(a, b) for a, b in zip(losses["off"], losses[n])) for n in names)
    return {name: statistics.median(t) for name, t in times.items()}, same


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--devices", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    fixed = os.environ.get("PE_DEVICE_THREADS")
    print(
        "median step time (ms) per setting, and its ratio to 'off'; same: every setting gave the "
        "same losses, to the bit"
    )
    for model in args.models:
        for devices in args.devices:
            os.environ["PE_DEVICE_THREADS"] = fixed or str(max(1, threads.cores() // devices))
            threads.refresh()
            medians, same = measure(model, devices, args.steps)
            cells = "  ".join(f"{name} {ms * 1e3:7.1f} ({ms / medians['off']:.2f})" for name, ms in medians.items())
            print(f"{model:<8} {devices} dev  {cells}  same={same}")


if __name__ == "__main__":
    main()
