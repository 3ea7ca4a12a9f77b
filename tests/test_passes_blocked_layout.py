"""The onednn_blocked_layout pass (pe_cli/compiler/passes/blocked_layout.py): which values of a
ResNet-like block it holds in oneDNN's blocked layout (conv -> batch norm + relu -> conv, forward and
backward), what it leaves NCHW (fetched values, inference, thin or odd channels), and that training
with it gives the losses of training without it, on 1 device and on 2."""
import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler.passes import blocked_layout, program_passes
from pe_cli.kernels.cpu import _onednn

pytestmark = pytest.mark.skipif(_onednn.library() is None, reason="the onednn extra is not installed")


def build(channels=16, act="relu", fetch_mid=False):
    """fed x [C, 8, 8] -> conv C -> bn + act -> conv C -> bn + relu -> conv 32 (stride 2) -> pool -> fc."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [channels, 8, 8])
        label = fluid.layers.data("label", [1], dtype="int64")
        c1 = fluid.layers.conv2d(x, channels, 3, padding=1, bias_attr=False)
        b1 = fluid.layers.batch_norm(c1, act=act)
        c2 = fluid.layers.conv2d(b1, channels, 3, padding=1, bias_attr=False)
        b2 = fluid.layers.batch_norm(c2, act="relu")
        c3 = fluid.layers.conv2d(b2, 32, 3, padding=1, stride=2, bias_attr=False)
        logits = fluid.layers.fc(fluid.layers.pool2d(c3, pool_type="avg", global_pooling=True), 10)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        test = main.clone(for_test=True)
        fluid.optimizer.Momentum(0.1, 0.9).minimize(loss)
    return main, startup, test, loss, {"c1": c1, "b1": b1, "c2": c2, "b2": b2}


def strategy():
    s = fluid.BuildStrategy()
    s.fuse_bn_act_ops = True
    return s


def marked(program, fetched=()):
    """{(op type, index among its type): sorted blocked slots} of ``program`` after the fusions."""
    fused, _ = program_passes(program, strategy())
    ops = fused.global_block().ops
    seen, out = {}, {}
    for i, op in enumerate(ops):
        k = seen[op.type] = seen.get(op.type, -1) + 1
        slots = blocked_layout.marks(fused.global_block(), fetched).get(i)
        if slots:
            out[(op.type, k)] = sorted(slots)
    return out


def test_a_block_between_convolutions_is_held_blocked_forward_and_backward():
    main, *_ = build()
    assert marked(main) == {
        ("conv2d", 0): ["Output"],                  # its input is fed: NCHW
        ("fused_batch_norm_act", 0): ["X", "Y"],
        ("conv2d", 1): ["Input", "Output"],
        ("fused_batch_norm_act", 1): ["X", "Y"],
        ("conv2d", 2): ["Input"],                   # its output goes to pool2d: NCHW
        ("conv2d_grad", 0): ["Input", "Input@GRAD"],
        ("fused_batch_norm_act_grad", 0): ["X", "X@GRAD", "Y", "Y@GRAD"],
        ("conv2d_grad", 1): ["Input", "Input@GRAD", "Output@GRAD"],
        ("fused_batch_norm_act_grad", 1): ["X", "X@GRAD", "Y", "Y@GRAD"],
        ("conv2d_grad_filter", 0): ["Output@GRAD"],  # the first conv's input needs no gradient
    }


def test_a_fetched_value_and_its_group_stay_nchw():
    main, *_, v = build()
    got = marked(main, fetched=[v["c2"].name])
    assert ("fused_batch_norm_act", 1) not in got
    assert got[("conv2d", 1)] == ["Input"] and got[("fused_batch_norm_act", 0)] == ["X", "Y"]


@pytest.mark.parametrize("case", ["inference", "12 channels", "tanh"])
def test_what_stays_nchw(case):
    main, _, test, *_ = build(channels=12 if case == "12 channels" else 16, act="tanh" if case == "tanh" else "relu")
    got = marked(test if case == "inference" else main)
    if case == "tanh":      # only the relu block is held blocked
        assert ("fused_batch_norm_act", 0) not in got and got[("fused_batch_norm_act", 1)] == ["X", "Y"]
    else:
        assert got == {}


def train(devices, fused, steps=4, fetch_mid=False):
    main, startup, _, loss, v = build()
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    s = strategy() if fused else None
    if devices == 1:
        program = fluid.CompiledProgram(main, build_strategy=s)
    else:
        program = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, build_strategy=s,
                                                                 places=[fluid.CPUPlace()] * devices)
    rng = np.random.default_rng(0)
    out = []
    for _ in range(steps):
        feed = {"x": rng.normal(size=(8, 16, 8, 8)).astype(np.float32),
                "label": rng.integers(0, 10, (8, 1)).astype(np.int64)}
        out.append(exe.run(program, feed=feed, fetch_list=[loss, v["c2"]] if fetch_mid else [loss], scope=scope))
    return out


@pytest.mark.parametrize("devices", [1, 2])
def test_training_gives_the_losses_of_training_without_it(devices):
    plain, held = train(devices, False), train(devices, True)
    for a, b in zip(plain, held):       # batch norm's sums run in another order: float32 rounding
        np.testing.assert_allclose(b[0], a[0], rtol=1e-5)


def test_a_fetched_value_is_nchw_and_what_the_graph_computes():
    plain, held = train(1, False, steps=2, fetch_mid=True), train(1, True, steps=2, fetch_mid=True)
    for a, b in zip(plain, held):
        assert b[1].shape == a[1].shape == (8, 16, 8, 8)
        np.testing.assert_allclose(b[1], a[1], rtol=1e-4, atol=1e-5)
