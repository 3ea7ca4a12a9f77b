"""The fuse_elewise_add_act_ops pass (pe_cli/compiler/passes/fuse_elewise_add_act.py): exactly what
it fuses in a small program and what it leaves, that the program given is unchanged, and that
training with it is bitwise training without it (MLP, LeNet-5, batch-norm CNN; 1 and 2 devices, with
the other passes too)."""
import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import build_ssa_graph, passes
from pe_cli.compiler.passes import fuse_elewise_add_act

from test_passes_memory import MODELS, build, train


def _types(program):
    return [op.type for op in program.global_block().ops]


def test_bias_add_and_activation_fuse_with_their_gradients():
    main, _, _ = build("mlp")
    before = _types(main)
    fused, changes = fuse_elewise_add_act(main)
    assert _types(main) == before                               # the program given is unchanged
    after = _types(fused)
    assert after.count("fused_elemwise_activation") == 1 and after.count("fused_elemwise_activation_grad") == 1
    assert "relu" not in after and "relu_grad" not in after
    assert after.count("elementwise_add") == before.count("elementwise_add") - 1        # the logits' bias stays
    assert after.count("elementwise_add_grad") == before.count("elementwise_add_grad") - 1
    assert len(after) == len(before) - 2
    relu = next(op for op in main.global_block().ops if op.type == "relu")
    assert changes == [f"elementwise_add -> {relu.input('X')[0]} -> relu fused into fused_elemwise_activation "
                       f"(and their gradients)"]
    op = next(op for op in fused.global_block().ops if op.type == "fused_elemwise_activation")
    assert op.attrs["functor_list"] == ["relu", "elementwise_add"] and not op.attrs["save_intermediate_out"]
    assert op.output("Out") == relu.output("Out")


def test_a_sum_another_op_reads_is_not_fused():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [4])
        s = fluid.layers.elementwise_add(x, fluid.layers.fill_constant([4], "float32", 1.0))
        out = fluid.layers.relu(s) + s                      # s is read twice
        fluid.layers.mean(out)
    assert fuse_elewise_add_act(main) == (main, [])


def test_an_activation_reading_its_input_saves_the_sum():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [4])
        loss = fluid.layers.mean(fluid.layers.fc(x, 3, act="gelu"))
        fluid.optimizer.SGD(0.1).minimize(loss)
    fused, changes = fuse_elewise_add_act(main)
    op = next(op for op in fused.global_block().ops if op.type == "fused_elemwise_activation")
    grad = next(op for op in fused.global_block().ops if op.type == "fused_elemwise_activation_grad")
    assert op.attrs["save_intermediate_out"] and grad.input("IntermediateOut") == op.output("IntermediateOut")
    assert len(changes) == 1


def test_pe_graph_reports_the_pass_first():
    main, _, loss = build("mlp")
    strategy = fluid.BuildStrategy()
    strategy.fuse_elewise_add_act_ops = True
    graph = build_ssa_graph(main, [fluid.CPUPlace()] * 2, strategy, loss.name).with_fetches([loss.name])
    _, report = passes.apply(graph, [loss.name], strategy)
    assert [name for name, _ in report] == ["fuse_elewise_add_act_ops"]
    assert sum(1 for n in graph.ops if n.op is not None and n.op.type == "fused_elemwise_activation") == 2
    assert passes.ORDER[0] == "fuse_elewise_add_act_ops"


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("devices", [1, 2])
@pytest.mark.parametrize("others", [{}, {"enable_inplace": True}])
def test_training_is_bitwise_unchanged(model, devices, others):
    losses, final = train(model, devices, None)
    how = "strategy" if others else None
    losses_f, final_f = train(model, devices, how, fuse_elewise_add_act_ops=True, **others)
    for a, b in zip(losses, losses_f):
        np.testing.assert_array_equal(a, b)
    assert final.keys() == final_f.keys()
    for name in final:
        np.testing.assert_array_equal(final[name], final_f[name], err_msg=name)
