"""The fuse_elewise_add_act_ops pass (pe_cli/compiler/passes/fuse_elewise_add_act.py): which op
pairs it fuses in a small program (forward and backward), what it leaves alone, and that training
with it gives the losses and parameters of training without it (MLP, LeNet-5, batch-norm CNN; 1
and 2 devices)."""

import collections
import re

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.kernels.context import KernelContext
from pe_cli.compiler import build_ssa_graph
from pe_cli.compiler.passes.fuse_elewise_add_act import fuse_elewise_add_act
from pe_cli.compiler.passes.liveness import pinned_names, sequential_frees
from pe_cli.base.errors import ShapeError
from pe_cli.kernels.cpu.runtime import loops
from pe_cli.kernels.cpu import activation, elementwise, fused

from tests.cli.test_helpers import pe
from tests.compiler.passes.test_memory import MODELS, build, train


def counts(program):
    return collections.Counter(op.type for op in program.global_block().ops)


def test_it_fuses_the_mlp_hidden_layer_forward_and_backward():
    main, _, loss = build("mlp")
    before = counts(main)
    fused, changes = fuse_elewise_add_act(main)
    after = counts(fused)
    assert counts(main) == before  # the program given is unchanged
    # the MLP: fc(relu) then fc(softmax): one add + relu pair (the output layer's add feeds softmax)
    assert before["elementwise_add"] == 2 and before["relu"] == 1
    assert after["fused_elemwise_activation"] == 1 and after["fused_elemwise_activation_grad"] == 1
    assert after["elementwise_add"] == 1 and after["relu"] == 0 and after["relu_grad"] == 0
    assert after["elementwise_add_grad"] == before["elementwise_add_grad"] - 1
    assert sum(after.values()) == sum(before.values()) - 2
    assert len(changes) == 2
    assert re.fullmatch(r"elementwise_add \(\w+\) \+ relu -> fused_elemwise_activation writing \S+", changes[0])
    assert changes[1].startswith("relu_grad + elementwise_add_grad -> fused_elemwise_activation_grad writing ")
    op = next(op for op in fused.global_block().ops if op.type == "fused_elemwise_activation")
    add = next(
        o
        for o in main.global_block().ops
        if o.type == "elementwise_add" and o.output("Out") == op.output("IntermediateOut")
    )
    assert op.input("X") == add.input("X") and op.input("Y") == add.input("Y")
    assert op.attrs["functor_list"] == ["relu", "elementwise_add"]
    # relu's gradient reads Out, so the fused gradient does not read the intermediate sum, which
    # then gives its memory away as soon as the forward op has run
    ops = fused.global_block().ops
    grad = next(o for o in ops if o.type == "fused_elemwise_activation_grad")
    assert grad.input("IntermediateOut") == [] and grad.input("Out") == op.output("Out")
    frees = sequential_frees(ops, pinned_names(fused.global_block()))
    assert op.output("IntermediateOut")[0] in frees[ops.index(op)]


def test_an_activation_reading_its_input_keeps_the_intermediate_for_the_gradient():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[4])
        h = fluid.layers.fc(x, 4)  # elementwise_add(mul, bias)
        fluid.backward.append_backward(fluid.layers.mean(fluid.layers.square(h)))
    fused, _ = fuse_elewise_add_act(main)
    ops = fused.global_block().ops
    op = next(o for o in ops if o.type == "fused_elemwise_activation")
    grad = next(o for o in ops if o.type == "fused_elemwise_activation_grad")
    assert op.attrs["functor_list"] == ["square", "elementwise_add"]
    assert grad.input("IntermediateOut") == op.output("IntermediateOut")


def test_a_hand_built_gradient_without_the_intermediate_it_needs_is_a_shape_error():
    main = fluid.Program()
    block = main.global_block()
    x, y, out, dout = (block.create_var(name=n, shape=(2, 4), dtype="float32") for n in ("x", "y", "out", "dout"))
    dx = block.create_var(name="dx")
    ins = {"X": [x], "Y": [y], "Out": [out], "Out@GRAD": [dout]}
    block.append_op(
        "fused_elemwise_activation_grad", ins, {"X@GRAD": [dx]}, {"functor_list": ["relu", "elementwise_add"]}
    )  # relu's reads Out: fine
    with pytest.raises(ShapeError, match="square's gradient reads its input: give IntermediateOut"):
        block.append_op(
            "fused_elemwise_activation_grad",
            ins,
            {"X@GRAD": [block.create_var(name="dx2")]},
            {"functor_list": ["square", "elementwise_add"]},
        )


def _program(act_reader):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[4])
        y = fluid.layers.data(name="y", shape=[4])
        s = fluid.layers.elementwise_add(x, y)
        out = fluid.layers.tanh(s)
        if act_reader:
            out = fluid.layers.elementwise_add(out, fluid.layers.scale(s, 2.0))
        fluid.layers.mean(out)
    return main


def test_an_intermediate_with_another_reader_is_left_alone():
    fused, changes = fuse_elewise_add_act(_program(act_reader=False))
    assert counts(fused)["fused_elemwise_activation"] == 1 and len(changes) == 1
    main = _program(act_reader=True)
    fused, changes = fuse_elewise_add_act(main)
    assert fused is main and changes == []


def test_off_by_default_and_on_from_the_strategy():
    main, _, loss = build("mlp")
    graph = build_ssa_graph(main, [fluid.CPUPlace()] * 2, fluid.BuildStrategy(), loss.name)
    assert graph.program_passes == [] and not any(n.label().startswith("fused") for n in graph.ops if n.is_op)
    strategy = fluid.BuildStrategy()
    strategy.fuse_elewise_add_act_ops = True
    assert "fuse_elewise_add_act_ops" not in fluid.BuildStrategy.NO_EFFECT_YET
    graph = build_ssa_graph(main, [fluid.CPUPlace()] * 2, strategy, loss.name)
    fused = [n for n in graph.ops if n.is_op and n.label().startswith("fused_elemwise_activation")]
    assert sorted(n.device for n in fused) == [0, 0, 1, 1]  # forward and grad op on each device
    assert [name for name, _ in graph.program_passes] == ["fuse_elewise_add_act_ops"]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("devices", [1, 2])
def test_training_is_unchanged(model, devices, fixed_threads):
    losses, final = train(model, devices, None)
    losses_fused, final_fused = train(model, devices, None, fuse_elewise_add_act_ops=True)
    # the fused kernels call the unfused ones in the same order: equal to the bit
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)


def test_pe_graph_passes_shows_the_fused_ops():
    proc = pe("graph", "configs/mnist_mlp.yaml", "--passes", "build_strategy.fuse_elewise_add_act_ops=true")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1] == "fuse_relu_depthwise_conv: off (build_strategy.fuse_relu_depthwise_conv)"
    assert lines[2] == "fuse_bn_act_ops: off (build_strategy.fuse_bn_act_ops)"
    assert lines[3] == "fuse_gemm_epilogue: off (build_strategy.fuse_gemm_epilogue)"
    assert lines[4] == "fuse_attention: off (build_strategy.fuse_attention)"
    assert re.fullmatch(r"fuse_elewise_add_act_ops: [1-9]\d* changes", lines[5])
    assert any("-> fused_elemwise_activation writing" in line for line in lines)
    assert any("-> fused_elemwise_activation_grad writing" in line for line in lines)


@pytest.mark.parametrize("shape", [(3, 5), (2048, 256)])  # the serial and the parallel loop
def test_the_cpu_bias_relu_loop_is_bitwise_the_unfused_kernels(shape):
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=shape).astype("float32"), rng.normal(size=shape[-1:]).astype("float32")
    x.flat[:3] = [np.nan, -0.0, -y[2]]
    outs = fused.fused_elemwise_activation({"X": x, "Y": y}, {"functor_list": ["relu", "elementwise_add"], "axis": -1})
    inter = elementwise.elementwise_add({"X": x, "Y": y}, {"axis": -1})["Out"]
    out = activation.relu({"X": inter}, {})["Out"]
    assert outs["IntermediateOut"].tobytes() == inter.tobytes() and outs["Out"].tobytes() == out.tobytes()


@pytest.mark.parametrize("act", ["tanh", "sigmoid"])
@pytest.mark.parametrize(
    "x_shape, y_shape",
    [
        ((3, 5), (3, 5)),
        ((3, 5), (5,)),
        ((4, 6, 16), (4, 1, 16)),
        ((4, 6, 16), (1, 1, 16)),
        ((64, 40, 256), (64, 1, 256)),
    ],
)
@pytest.mark.parametrize("keep", [True, False])
def test_the_cpu_add_tanh_and_sigmoid_loop_is_bitwise_the_unfused_kernels(
    act, x_shape, y_shape, keep, fixed_threads, monkeypatch
):
    """float32 X + Y broadcast over a middle run of X's dims (the attention's [B, 1, H] query over T
    steps), then the activation, in one pass (the large shape on the parallel twin)."""
    monkeypatch.setattr(loops, "EAGER", True)  # the parallel twin compiles now, not in a helper
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=x_shape).astype("float32") * 4, rng.normal(size=y_shape).astype("float32")
    x.flat[:4] = [np.nan, -0.0, np.inf, -y.flat[3]]
    attrs = {
        "functor_list": [act, "elementwise_add"],
        "axis": -1,
    }
    wanted = KernelContext(outputs=frozenset({"Out", "IntermediateOut"} if keep else {"Out"}))
    outs = fused.fused_elemwise_activation({"X": x, "Y": y}, attrs, wanted)
    inter = elementwise.elementwise_add({"X": x, "Y": y}, {"axis": -1})["Out"]
    out = getattr(activation, act)({"X": inter}, {})["Out"]
    assert outs["Out"].shape == x_shape and outs["Out"].tobytes() == out.tobytes()
    assert ("IntermediateOut" in outs) == keep
    if keep:
        assert outs["IntermediateOut"].tobytes() == inter.tobytes()


def test_an_empty_add_and_tanh_is_empty():
    out = fused.fused_elemwise_activation(
        {"X": np.empty((0, 5), "float32"), "Y": np.ones(5, "float32")},
        {"functor_list": ["tanh", "elementwise_add"], "axis": -1},
    )
    assert out["Out"].shape == (0, 5) and out["Out"].dtype == np.float32
