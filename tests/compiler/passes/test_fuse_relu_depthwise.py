"""The fuse_relu_depthwise_conv pass (pe_cli/compiler/passes/fuse_relu_depthwise_conv.py): relu
folded into the depthwise_conv2d that alone reads it (forward and gradient), what it leaves alone,
and that training a small MobileNet-style net with it gives bitwise the losses and parameters of
training without it (1 and 2 devices, alone and with the other fusions)."""

import collections

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import build_ssa_graph
from pe_cli.compiler.passes.fuse_relu_depthwise_conv import fuse_relu_depthwise_conv

from parallel_nets import batch, params


def depthwise_net(image, label):
    """conv 3x3 (relu) -> depthwise 3x3 -> batch_norm (relu) -> depthwise 3x3 x2 -> pool -> fc."""
    h = fluid.layers.conv2d(image, num_filters=4, filter_size=3, padding=1, act="relu")
    d = fluid.layers.conv2d(h, num_filters=4, filter_size=3, padding=1, groups=4, use_cudnn=False)
    h = fluid.layers.batch_norm(d, act="relu")
    h = fluid.layers.conv2d(h, num_filters=8, filter_size=3, padding=1, groups=4, use_cudnn=False)
    h = fluid.layers.pool2d(h, pool_size=2, pool_stride=2)
    logits = fluid.layers.fc(h, 10)
    return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))


def build(train=True):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[1, 28, 28])
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        loss = depthwise_net(x, label)
        if train:
            fluid.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)
    return main, startup, loss


def counts(program):
    return collections.Counter(op.type for op in program.global_block().ops)


def test_relu_is_folded_into_the_depthwise_conv_forward_and_backward():
    main, _, _ = build()
    before = counts(main)
    assert before["depthwise_conv2d"] == 2 and before["relu"] == 2
    fused, changes = fuse_relu_depthwise_conv(main)
    after = counts(fused)
    assert counts(main) == before  # the program given is unchanged
    # the conv's relu (bias add then relu) feeds the first depthwise conv: folded; the second
    # depthwise conv reads batch_norm's relu: folded too
    assert after["relu"] == 0 and after["relu_grad"] == 0
    assert after["depthwise_conv2d_grad"] == before["depthwise_conv2d_grad"] == 2
    assert sum(after.values()) == sum(before.values()) - 4
    assert len(changes) == 4
    ops = main.global_block().ops
    relus = [op for op in ops if op.type == "relu"]
    convs = [op for op in fused.global_block().ops if op.type.startswith("depthwise_conv2d")]
    assert all(op.attrs["fuse_relu_before_depthwise_conv"] for op in convs)
    assert sorted(op.input("Input")[0] for op in convs if op.type == "depthwise_conv2d") == sorted(
        op.input("X")[0] for op in relus
    )
    relu_grads = [op for op in ops if op.type == "relu_grad"]
    writes = {n for op in fused.global_block().ops for n in op.output_arg_names}
    for relu, relu_grad in zip(relus, relu_grads):
        assert relu.output("Out")[0] not in writes  # no longer kept
        assert relu_grad.output("X@GRAD")[0] in writes  # written by the conv's grad op
    assert changes[0].startswith("relu + depthwise_conv2d") and "fuse_relu_before_depthwise_conv" in changes[0]


def test_a_relu_with_another_reader_is_left_alone():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[4, 6, 6])
        h = fluid.layers.relu(x)
        d = fluid.layers.conv2d(h, num_filters=4, filter_size=3, groups=4, use_cudnn=False)
        fluid.layers.mean(d) + fluid.layers.mean(h)  # relu's output read twice
    fused, changes = fuse_relu_depthwise_conv(main)
    assert fused is main and changes == []


def test_forward_only_program():
    main, _, _ = build(train=False)
    fused, changes = fuse_relu_depthwise_conv(main)
    assert counts(fused)["relu"] == 0 and len(changes) == 2


def test_off_by_default_and_on_from_the_strategy():
    main, _, loss = build()
    assert "fuse_relu_depthwise_conv" not in fluid.BuildStrategy.NO_EFFECT_YET
    graph = build_ssa_graph(main, [fluid.CPUPlace()], fluid.BuildStrategy(), loss.name)
    assert any(n.label() == "relu" for n in graph.ops if n.is_op)
    strategy = fluid.BuildStrategy()
    strategy.fuse_relu_depthwise_conv = True
    graph = build_ssa_graph(main, [fluid.CPUPlace()] * 2, strategy, loss.name)
    assert not any(n.label() in ("relu", "relu_grad") for n in graph.ops if n.is_op)
    assert [name for name, _ in graph.program_passes] == ["fuse_relu_depthwise_conv"]


def train(devices, **options):
    main, startup, loss = build()
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    for key, value in options.items():
        setattr(strategy, key, value)
    program = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=[fluid.CPUPlace()] * devices
    )
    losses = [exe.run(program, feed=batch("lenet", 8, seed=i), fetch_list=[loss], scope=scope)[0] for i in range(4)]
    return losses, params(main, scope)


@pytest.mark.parametrize(
    "devices,others",
    [(1, {}), (2, {}), (2, {"fuse_bn_act_ops": True, "fuse_elewise_add_act_ops": True, "memory_optimize": True})],
)
def test_training_is_bitwise_unchanged(devices, others, fixed_threads):
    losses, final = train(devices, **others)
    losses_fused, final_fused = train(devices, fuse_relu_depthwise_conv=True, **others)
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)
