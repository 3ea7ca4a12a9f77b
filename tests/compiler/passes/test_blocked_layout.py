"""The onednn_blocked_layout pass (pe_cli/compiler/passes/blocked_layout.py): which values of a
ResNet-like network it holds in oneDNN's blocked layout (conv -> batch norm + relu -> conv, a
residual block's batch norm, add + relu and gradient sum, the global average pooling after it,
forward and backward), what it leaves NCHW (fetched values, inference, odd channels), and that
training with it gives the losses of training without it, on 1 device and on 2."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler.passes import blocked_layout, program_passes
from pe_cli.kernels.cpu.runtime import onednn as _onednn

pytestmark = pytest.mark.skipif(_onednn.library() is None, reason="the onednn extra is not installed")


def build(channels=16, act="relu", residual=False, in_channels=None):
    """fed x [in_channels, 8, 8] -> conv C -> bn + act (b1) -> conv C -> bn + relu (with ``residual``:
    bn, then relu(b1 + it)) -> conv 32 (stride 2) -> global average pool -> fc."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [in_channels or channels, 8, 8])
        label = fluid.layers.data("label", [1], dtype="int64")
        c1 = fluid.layers.conv2d(x, channels, 3, padding=1, bias_attr=False)
        b1 = fluid.layers.batch_norm(c1, act=act)
        c2 = fluid.layers.conv2d(b1, channels, 3, padding=1, bias_attr=False)
        if residual:
            b2 = fluid.layers.relu(fluid.layers.elementwise_add(fluid.layers.batch_norm(c2), b1))
        else:
            b2 = fluid.layers.batch_norm(c2, act="relu")
        c3 = fluid.layers.conv2d(b2, 32, 3, padding=1, stride=2, bias_attr=False)
        logits = fluid.layers.fc(fluid.layers.pool2d(c3, pool_type="avg", global_pooling=True), 10)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        test = main.clone(for_test=True)
        fluid.optimizer.Momentum(0.1, 0.9).minimize(loss)
    return main, startup, test, loss, {"c1": c1, "b1": b1, "c2": c2, "b2": b2}


def strategy():
    s = fluid.BuildStrategy()
    s.fuse_bn_act_ops = s.fuse_elewise_add_act_ops = True
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
        ("conv2d", 0): ["Output"],  # its input is fed: NCHW
        ("fused_batch_norm_act", 0): ["X", "Y"],
        ("conv2d", 1): ["Input", "Output"],
        ("fused_batch_norm_act", 1): ["X", "Y"],
        ("conv2d", 2): ["Input", "Output"],
        ("pool2d", 0): ["X"],  # its output goes to fc: NCHW
        ("pool2d_grad", 0): ["X", "X@GRAD"],
        ("conv2d_grad", 0): ["Input", "Input@GRAD", "Output@GRAD"],
        ("fused_batch_norm_act_grad", 0): ["X", "X@GRAD", "Y", "Y@GRAD"],
        ("conv2d_grad", 1): ["Input", "Input@GRAD", "Output@GRAD"],
        ("fused_batch_norm_act_grad", 1): ["X", "X@GRAD", "Y", "Y@GRAD"],
        ("conv2d_grad", 2): ["Output@GRAD"],  # the first conv's input needs no gradient: Filter@GRAD alone
    }


def test_a_residual_block_is_held_blocked_through_its_add_and_gradient_sum():
    main, *_ = build(residual=True)
    got = marked(main)
    assert got[("batch_norm", 0)] == ["X", "Y"]
    assert got[("fused_elemwise_activation", 0)] == ["IntermediateOut", "Out", "X", "Y"]
    assert got[("fused_elemwise_activation_grad", 0)] == ["Out", "Out@GRAD", "X", "X@GRAD", "Y", "Y@GRAD"]
    assert got[("batch_norm_grad", 0)] == ["X", "X@GRAD", "Y@GRAD"]
    assert got[("sum", 0)] == ["Out", "X"]  # b1's gradient: from the second conv and from the add
    assert got[("fused_batch_norm_act", 0)] == ["X", "Y"] and got[("conv2d", 2)] == ["Input", "Output"]


def test_a_first_convolution_on_3_channels_gives_its_output_blocked():
    got = marked(build(in_channels=3)[0])
    assert got[("conv2d", 0)] == ["Output"] and got[("conv2d_grad", 2)] == ["Output@GRAD"]


def test_a_fetched_value_and_its_group_stay_nchw():
    main, *_, v = build()
    got = marked(main, fetched=[v["c2"].name])
    assert ("fused_batch_norm_act", 1) not in got
    assert got[("conv2d", 1)] == ["Input"] and got[("fused_batch_norm_act", 0)] == ["X", "Y"]
    # in a residual block the fetched value's group reaches the add, and through it b1's batch norm
    got = marked(build(residual=True)[0], fetched=[v["c2"].name])
    assert not {"batch_norm", "fused_elemwise_activation", "fused_batch_norm_act", "sum"} & {t for t, _ in got}
    assert got[("conv2d", 2)] == ["Output"]  # its input, the add's output, is NCHW


@pytest.mark.parametrize("case", ["inference", "12 channels", "tanh"])
def test_what_stays_nchw(case):
    main, _, test, *_ = build(channels=12 if case == "12 channels" else 16, act="tanh" if case == "tanh" else "relu")
    got = marked(test if case == "inference" else main)
    if case == "tanh":  # only the relu block is held blocked
        assert ("fused_batch_norm_act", 0) not in got and got[("fused_batch_norm_act", 1)] == ["X", "Y"]
    else:  # only the last convolution's output (32 channels), which the pooling reads
        assert {key for key in got if key[0] in ("conv2d", "pool2d")} == {("conv2d", 2), ("pool2d", 0)}
        assert got[("conv2d", 2)] == ["Output"] and not any("batch_norm" in t for t, _ in got)


def train(devices, fused, steps=4, fetch_mid=False, residual=False):
    main, startup, _, loss, v = build(residual=residual)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    s = strategy() if fused else None
    if devices == 1:
        program = fluid.CompiledProgram(main, build_strategy=s)
    else:
        program = fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=s, places=[fluid.CPUPlace()] * devices
        )
    rng = np.random.default_rng(0)
    out = []
    for _ in range(steps):
        feed = {
            "x": rng.normal(size=(8, 16, 8, 8)).astype(np.float32),
            "label": rng.integers(0, 10, (8, 1)).astype(np.int64),
        }
        out.append(exe.run(program, feed=feed, fetch_list=[loss, v["c2"]] if fetch_mid else [loss], scope=scope))
    return out


@pytest.mark.parametrize("residual", [False, True], ids=["plain", "residual"])
@pytest.mark.parametrize("devices", [1, 2])
def test_training_gives_the_losses_of_training_without_it(devices, residual):
    plain, held = train(devices, False, residual=residual), train(devices, True, residual=residual)
    for a, b in zip(plain, held):  # batch norm's sums run in another order: float32 rounding
        np.testing.assert_allclose(b[0], a[0], rtol=1e-5)


def test_a_fetched_value_is_nchw_and_what_the_graph_computes():
    plain, held = train(1, False, steps=2, fetch_mid=True), train(1, True, steps=2, fetch_mid=True)
    for a, b in zip(plain, held):
        assert b[1].shape == a[1].shape == (8, 16, 8, 8)
        np.testing.assert_allclose(b[1], a[1], rtol=1e-4, atol=1e-5)
