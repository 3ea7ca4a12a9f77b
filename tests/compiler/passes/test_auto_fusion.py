"""The enable_auto_fusion pass (pe_cli/compiler/passes/auto_fusion.py): which runs of elementwise
ops and activations become one fusion_group op, what it leaves alone, and that training with it
gives bitwise the losses and parameters of training without it (MLP, LeNet-5, batch-norm CNN, a
gated net; 1 and 2 devices; with the other fusions)."""

import collections

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import build_ssa_graph
from pe_cli.compiler.passes.auto_fusion import auto_fusion
from pe_cli.framework.operator import OpRole

from parallel_nets import batch, params
from tests.cli.test_helpers import pe
from tests.compiler.passes.test_fuse_optimizer import train
from tests.compiler.passes.test_memory import MODELS


def gated(x):
    """fc, then x * sigmoid(x), scale and tanh: one run of 5 elementwise ops with the bias add."""
    h = fluid.layers.fc(x, 8)
    g = fluid.layers.elementwise_mul(h, fluid.layers.sigmoid(h))
    return fluid.layers.tanh(fluid.layers.scale(g, 2.0, bias=0.5))


def build_gated(train=True, dropout=False):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[8])
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        h = gated(x)
        if dropout:
            h = fluid.layers.tanh(fluid.layers.dropout(h, 0.5))
        logits = fluid.layers.fc(h, 4)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        if train:
            fluid.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)
    return main, startup, loss


def counts(program):
    return collections.Counter(op.type for op in program.global_block().ops)


def test_a_run_of_elementwise_ops_becomes_one_op_computing_the_same_values():
    main, startup, loss = build_gated(train=False)
    fused, changes = auto_fusion(main)
    before, after = counts(main), counts(fused)
    assert counts(main) == before  # the program given is unchanged
    assert after["fusion_group"] == 1 and after["sigmoid"] == after["tanh"] == after["scale"] == 0
    assert before["elementwise_add"] - after["elementwise_add"] == 1  # the first fc's bias add
    assert changes == [
        f"elementwise_add + sigmoid + elementwise_mul + scale + tanh -> fusion_group writing "
        f"{', '.join(next(op for op in fused.global_block().ops if op.type == 'fusion_group').output('Outs'))}"
    ]
    group = next(op for op in fused.global_block().ops if op.type == "fusion_group")
    assert [step[0] for step in group.attrs["subgraph"]] == [
        "elementwise_add",
        "sigmoid",
        "elementwise_mul",
        "scale",
        "tanh",
    ]
    assert len(group.input("Inputs")) == 2 and len(group.output("Outs")) == 5  # mul's out and the bias
    # every value the run wrote is still written, to the bit
    names = group.output("Outs") + [loss.name]
    feed = {"x": np.random.default_rng(0).normal(size=(5, 8)).astype("float32"), "label": np.zeros((5, 1), "int64")}
    results = []
    for program in (main, fused):
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        results.append(exe.run(program, feed=feed, fetch_list=names, scope=scope))
    for a, b in zip(*results):
        assert a.tobytes() == b.tobytes()


def test_ops_that_draw_random_numbers_or_are_not_elementwise_break_a_run():
    main, _, _ = build_gated(train=False, dropout=True)
    fused, changes = auto_fusion(main)
    after = counts(fused)
    assert after["dropout"] == 1 and after["tanh"] == 1 and after["fusion_group"] == 1
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[4])
        y = fluid.layers.data(name="y", shape=[4])
        fluid.layers.relu(x)
        fluid.layers.tanh(y)  # consecutive but not reading the relu: no run
    assert auto_fusion(main) == (main, [])


def test_off_by_default_and_on_from_the_strategy():
    main, _, loss = build_gated()
    assert fluid.BuildStrategy.NO_EFFECT_YET == ()
    graph = build_ssa_graph(main, [fluid.CPUPlace()], fluid.BuildStrategy(), loss.name)
    assert not any(n.label() == "fusion_group" for n in graph.ops if n.is_op)
    strategy = fluid.BuildStrategy()
    strategy.enable_auto_fusion = True
    graph = build_ssa_graph(main, [fluid.CPUPlace()] * 2, strategy, loss.name)
    assert sorted(n.device for n in graph.ops if n.is_op and n.label() == "fusion_group") == [0, 1]
    assert [name for name, _ in graph.program_passes] == ["enable_auto_fusion"]


def _train_gated(devices, **options):
    main, startup, loss = build_gated()
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    for key, value in options.items():
        setattr(strategy, key, value)
    program = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=[fluid.CPUPlace()] * devices
    )
    losses = [exe.run(program, feed=batch("mlp", 8, seed=i), fetch_list=[loss], scope=scope)[0] for i in range(4)]
    return losses, params(main, scope)


@pytest.mark.parametrize("devices", [1, 2])
def test_training_the_gated_net_is_bitwise_unchanged(devices, fixed_threads):
    losses, final = _train_gated(devices)
    losses_fused, final_fused = _train_gated(devices, enable_auto_fusion=True)
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("devices", [1, 2])
def test_training_is_bitwise_unchanged(model, devices, fixed_threads):
    losses, final = train(model, devices, "momentum")
    losses_fused, final_fused = train(model, devices, "momentum", enable_auto_fusion=True)
    others = {"fuse_elewise_add_act_ops": True, "fuse_bn_act_ops": True, "fuse_all_optimizer_ops": True}
    losses_all, final_all = train(model, devices, "momentum", enable_auto_fusion=True, **others)
    for a, b, c in zip(losses, losses_fused, losses_all):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)
        np.testing.assert_array_equal(final[name], final_all[name], err_msg=name)


def test_pe_graph_passes_shows_the_groups():
    proc = pe("graph", "configs/mnist_mlp.yaml", "--passes", "build_strategy.enable_auto_fusion=true")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("enable_auto_fusion: "))
    assert lines[at] != "enable_auto_fusion: 0 changes" and "-> fusion_group writing" in lines[at + 1]


def test_a_run_never_spans_two_roles():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[4])
        h = fluid.layers.relu(x)
    block = main.global_block()
    out = block.create_var(name="scaled")
    block.append_op("scale", {"X": [h.name]}, {"Out": [out.name]}, {"scale": 2.0})
    assert len(auto_fusion(main)[1]) == 1  # relu + scale, both forward: one group
    block.ops[-1].role = OpRole.Backward
    assert auto_fusion(main) == (main, [])
