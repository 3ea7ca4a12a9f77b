"""The fuse_gemm_epilogue pass (pe_cli/compiler/passes/fuse_gemm_epilogue.py): which ops of a fully
connected layer it fuses, forward and backward, what it leaves alone, that a fused-away value
cannot be fetched, and that training with it gives the losses and parameters of training without
it, to the bit (MLP, LeNet-5, batch-norm CNN; one device through a CompiledProgram, and 1 and 2
devices data parallel)."""

import collections
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler.passes.fuse_gemm_epilogue import fuse_gemm_epilogue
from pe_cli.base.errors import PeError

from parallel_nets import batch, params
from tests.cli.test_helpers import pe
from tests.compiler.passes.test_memory import MODELS, build, train


def counts(program):
    return collections.Counter(op.type for op in program.global_block().ops)


def _mlp3():
    """x[8] -> fc 16 relu -> fc 16 relu -> fc 4, softmax cross-entropy, momentum."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[8])
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        h = fluid.layers.fc(fluid.layers.fc(x, 16, act="relu"), 16, act="relu")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 4), label))
        fluid.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)
    return main, startup, loss


def test_it_fuses_every_layer_of_an_mlp_forward_and_backward():
    main, _, _ = _mlp3()
    before = counts(main)
    fused, changes = fuse_gemm_epilogue(main)
    after = counts(fused)
    assert counts(main) == before  # the program given is unchanged
    assert after["fused_gemm_epilogue"] == 3 and after["fused_gemm_epilogue_grad"] == 3
    for gone in ("mul", "elementwise_add", "relu", "mul_grad", "elementwise_add_grad", "relu_grad"):
        assert after[gone] == 0, gone
    assert after["momentum"] == before["momentum"] == 6
    assert sum(after.values()) == sum(before.values()) - 10  # 27 ops -> 17
    ops = fused.global_block().ops
    forward = [op for op in ops if op.type == "fused_gemm_epilogue"]
    assert [op.attrs["activation"] for op in forward] == ["relu", "relu", "none"]
    grads = [op for op in ops if op.type == "fused_gemm_epilogue_grad"]
    # each hidden layer's relu gradient is done by the layer above it; the first layer has no DX
    assert [op.attrs["activation_grad"] for op in grads] == ["relu_grad", "relu_grad", "none"]
    assert [bool(op.output("DX")) for op in grads] == [True, True, False]
    assert grads[0].input("X") == forward[1].output("Out")
    assert grads[0].output("DX") == ["fc_1.tmp_1@GRAD"]  # the gradient of fc_1's sum before its relu
    assert len(changes) == 6 and changes[0].startswith("mul (fc_0) + elementwise_add + relu -> fused_gemm_epilogue")
    assert (
        changes[1] == "elementwise_add_grad + mul_grad -> fused_gemm_epilogue_grad writing fc_0.w_0@GRAD, fc_0.b_0@GRAD"
    )


def _program(extra_reader=False, image=False):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[2, 2, 2] if image else [8])
        total = fluid.layers.fc(x, 4)  # mul + elementwise_add
        h = fluid.layers.relu(total)
        if extra_reader:  # the sum before relu read by another op too
            h = fluid.layers.elementwise_add(h, fluid.layers.scale(total, 2.0))
        fluid.optimizer.SGD(0.1).minimize(fluid.layers.mean(h))
    return main


def test_what_it_leaves_alone():
    fused, changes = fuse_gemm_epilogue(_program())
    assert counts(fused)["fused_gemm_epilogue"] == 1 and len(changes) == 2
    # fc over an image flattens it from dim 1 (x_num_col_dims 1 of a rank-4 input), not by its last dim
    main = _program(image=True)
    assert fuse_gemm_epilogue(main) == (main, [])
    # the sum before relu read by another op: the bias add and relu stay, the layer keeps mul + add
    main = _program(extra_reader=True)
    fused, changes = fuse_gemm_epilogue(main)
    assert counts(fused)["relu"] == 1 and counts(fused)["fused_gemm_epilogue"] == 1
    assert [op.attrs["activation"] for op in fused.global_block().ops if op.type == "fused_gemm_epilogue"] == ["none"]


def _single(model, fuse, fetch_extra=()):
    """Losses and final parameters of 4 steps through CompiledProgram(main, build_strategy) on one
    device (the sequential executor)."""
    main, startup, loss = build(model)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    strategy.fuse_gemm_epilogue = fuse
    compiled = fluid.CompiledProgram(main, build_strategy=strategy)
    data = "mlp" if model == "mlp" else "lenet"
    losses = [
        exe.run(compiled, feed=batch(data, 8, seed=i), fetch_list=[loss, *fetch_extra], scope=scope)[0]
        for i in range(4)
    ]
    return losses, params(main, scope)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("devices", [0, 1, 2])
def test_training_is_unchanged(model, devices, fixed_threads):  # noqa: F811 - the fixture
    if devices:
        losses, final = train(model, devices, None)
        losses_fused, final_fused = train(model, devices, None, fuse_gemm_epilogue=True)
    else:
        losses, final = _single(model, False)
        losses_fused, final_fused = _single(model, True)
    # the fused kernels compute what the unfused ones do, in the same order: equal to the bit
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)


def test_a_fused_away_value_cannot_be_fetched():
    main, _, _ = build("mlp")
    product = next(op for op in main.global_block().ops if op.type == "mul").output("Out")[0]
    with pytest.raises(PeError, match=f"cannot fetch '{product}'.*build_strategy.fuse_gemm_epilogue"):
        _single("mlp", True, fetch_extra=[product])
    _single("mlp", False, fetch_extra=[product])  # unfused, it is there


def test_pe_graph_passes_shows_the_fused_ops():
    proc = pe("graph", "configs/mnist_mlp.yaml", "--passes", "build_strategy.fuse_gemm_epilogue=true")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("fuse_gemm_epilogue: ") and line.endswith(" changes") for line in lines), lines
    assert any("-> fused_gemm_epilogue writing" in line for line in lines)
    assert any("-> fused_gemm_epilogue_grad writing" in line for line in lines)


def test_pe_train_on_one_device_runs_the_fused_program_with_the_same_numbers(tmp_path):
    """`pe train` on one device with build_strategy.fuse_gemm_epilogue: the sequential executor runs
    the fused program (a single-device CompiledProgram, run/placement.py); the fetched losses and the
    final parameters equal an unfused run's, to the bit."""
    small = [
        "data.train.limit=160",
        "data.eval.limit=100",
        "data.batch_size=32",
        "data.eval_batch_size=100",
        "epochs=1",
        "fetch.every=1",
        "devices=1",
        "output.curves=false",
    ]
    runs = {}
    for fuse in (False, True):
        out = tmp_path / f"fuse-{fuse}"
        proc = pe(
            "train",
            "configs/mnist_mlp.yaml",
            *small,
            f"build_strategy.fuse_gemm_epilogue={str(fuse).lower()}",
            "--out",
            out,
            "-q",
        )
        assert proc.returncode == 0, proc.stderr
        with np.load(out / "fetches.npz") as z:
            losses = z["loss"].copy()
        ckpt = out / "ckpt" / (out / "ckpt" / "last").read_text().strip()
        runs[fuse] = losses, {f: np.load(ckpt / f) for f in sorted(os.listdir(ckpt)) if f.endswith(".npy")}
    assert runs[False][0].shape == (5, 1)
    np.testing.assert_array_equal(runs[False][0], runs[True][0])
    assert runs[False][1].keys() == runs[True][1].keys()
    for name, value in runs[False][1].items():
        np.testing.assert_array_equal(value, runs[True][1][name], err_msg=name)


def test_one_device_takes_a_single_device_compiled_program_only_for_the_options_it_honours():
    from pe_cli.compiler import CompiledProgram
    from pe_cli.config import load_config
    from pe_cli.run.build import build_programs
    from pe_cli.run.placement import train_program

    def program(*overrides):
        cfg = load_config("configs/mnist_mlp.yaml", ["devices=1", *overrides])
        return train_program(cfg, build_programs(cfg.model, cfg), fluid.CPUPlace())

    assert not isinstance(program(), CompiledProgram)  # the main program as it is
    fused = program("build_strategy.fuse_gemm_epilogue=true", "build_strategy.memory_optimize=true")
    assert isinstance(fused, CompiledProgram) and not fused._is_data_parallel
    assert fused._build_strategy.fuse_gemm_epilogue and fused._build_strategy.memory_optimize
    # a graph pass or an execution option needs the parallel executor's graph, even on one device
    for option in ("build_strategy.enable_inplace=true", "exec_strategy.num_threads=2"):
        assert program("build_strategy.fuse_gemm_epilogue=true", option)._is_data_parallel, option
