"""The fuse_bn_act_ops pass (pe_cli/compiler/passes/fuse_bn_act.py): which ops it fuses in the
batch-norm CNN (forward and backward), what it leaves alone, and that training with it gives the
losses and parameters of training without it (1 and 2 devices, alone and with the other fusion)."""

import re

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.compiler import build_ssa_graph
from pe_cli.compiler.passes.fuse_bn_act import fuse_bn_act

from parallel_nets import batch
from tests.compiler.passes.test_fuse import counts
from tests.compiler.passes.test_memory import build, train


def test_it_fuses_batch_norm_and_relu_forward_and_backward():
    main, _, loss = build("bn_cnn")
    before = counts(main)
    fused, changes = fuse_bn_act(main)
    after = counts(fused)
    assert counts(main) == before  # the program given is unchanged
    assert before["batch_norm"] == 1 and before["relu"] == 1 and before["relu_grad"] == 1
    assert after["fused_batch_norm_act"] == 1 and after["fused_batch_norm_act_grad"] == 1
    for gone in ("batch_norm", "relu", "relu_grad", "batch_norm_grad"):
        assert after[gone] == 0, gone
    assert sum(after.values()) == sum(before.values()) - 2
    assert re.fullmatch(r"batch_norm \(\w+\) \+ relu -> fused_batch_norm_act writing \S+", changes[0])
    assert changes[1].startswith("relu_grad + batch_norm_grad -> fused_batch_norm_act_grad writing ")
    op = next(op for op in fused.global_block().ops if op.type == "fused_batch_norm_act")
    bn = next(op for op in main.global_block().ops if op.type == "batch_norm")
    assert op.inputs == bn.inputs and op.attrs["act_type"] == "relu"
    assert op.output("MeanOut") == bn.output("MeanOut") and op.output("Y") != bn.output("Y")


def test_a_normalized_value_with_another_reader_is_left_alone():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[3, 4, 4])
        y = fluid.layers.batch_norm(x)
        fluid.layers.mean(fluid.layers.elementwise_add(fluid.layers.relu(y), y))
    fused, changes = fuse_bn_act(main)
    assert fused is main and changes == []


def test_the_graph_runs_the_fused_ops_on_every_device():
    main, _, loss = build("bn_cnn")
    strategy = fluid.BuildStrategy()
    strategy.fuse_bn_act_ops = True
    assert "fuse_bn_act_ops" not in fluid.BuildStrategy.NO_EFFECT_YET
    graph = build_ssa_graph(main, [fluid.CPUPlace()] * 2, strategy, loss.name)
    fused = [n for n in graph.ops if n.is_op and n.label().startswith("fused_batch_norm_act")]
    assert sorted(n.device for n in fused) == [0, 0, 1, 1]
    assert [name for name, _ in graph.program_passes] == ["fuse_bn_act_ops"]


@pytest.mark.parametrize("devices", [1, 2])
@pytest.mark.parametrize("both", [False, True])
def test_training_is_unchanged(devices, both, fixed_threads):
    losses, final = train("bn_cnn", devices, None)
    options = {"fuse_bn_act_ops": True, "fuse_elewise_add_act_ops": both}
    losses_fused, final_fused = train("bn_cnn", devices, None, **options)
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)


def test_fetching_the_value_fused_away_says_so():
    main, startup, loss = build("bn_cnn")
    bn = next(op for op in main.global_block().ops if op.type == "batch_norm")
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    strategy.fuse_bn_act_ops = True
    program = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=[fluid.CPUPlace()] * 2
    )
    with pytest.raises(
        PeError, match=r"cannot fetch '.*': the fusion passes \(build_strategy.fuse_bn_act_ops\) removed"
    ):
        exe.run(program, feed=batch("lenet", 8), fetch_list=[bn.output("Y")[0]], scope=scope)
    assert exe.run(program, feed=batch("lenet", 8), fetch_list=[loss], scope=scope)[0].size == 2  # one loss per device
