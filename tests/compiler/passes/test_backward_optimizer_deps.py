"""The enable_backward_optimizer_op_deps pass (pe_cli/compiler/passes/backward_optimizer_deps.py):
the control dependencies it adds (on each device the update ops chained in the order their
gradients became final, the first after the last backward node and the last all-reduce), what it
leaves alone, and that training with it gives bitwise the losses and parameters of training
without it (MLP, LeNet-5, batch-norm CNN; 1 and 2 devices; AllReduce and Reduce; with the other
passes)."""

import re

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import build_ssa_graph, passes
from pe_cli.compiler.passes.backward_optimizer_deps import backward_optimizer_deps
from pe_cli.framework.operator import OpRole

from tests.cli.test_helpers import pe
from tests.compiler.passes.test_fuse_optimizer import build, train
from tests.compiler.passes.test_memory import MODELS


def graph_of(devices, optimizer="momentum", **options):
    main, _, loss = build("mlp", optimizer)
    strategy = fluid.BuildStrategy()
    for key, value in options.items():
        setattr(strategy, key, value)
    return build_ssa_graph(main, [fluid.CPUPlace()] * devices, strategy, loss.name).with_fetches([loss.name])


def waits_for(node):
    """The nodes ``node`` waits for through control dependencies."""
    return {v.producer.id for v in node.inputs if v.is_dep}


@pytest.mark.parametrize("devices", [1, 2])
def test_updates_are_chained_in_gradient_order_after_the_backward_pass(devices):
    graph = graph_of(devices)
    deps_before = len(graph.deps)
    new, changes = backward_optimizer_deps(graph)
    assert len(graph.deps) == deps_before and new is not graph  # the graph given is unchanged
    order = [g for _, g in graph.param_grads]
    for d in range(devices):
        updates = [n for n in new.ops if n.op is not None and n.op.type == "momentum" and n.device == d]
        updates.sort(key=lambda n: order.index(n.op.input("Grad")[0]))
        for before, after in zip(updates, updates[1:]):
            assert waits_for(after) - waits_for(next(o for o in graph.ops if o.id == after.id)) == {before.id}
        backward = [
            n for n in graph.ops if n.op is not None and n.device == d and n.op.role & ~OpRole.Loss == OpRole.Backward
        ]
        first = waits_for(updates[0]) - waits_for(next(o for o in graph.ops if o.id == updates[0].id))
        all_reduces = [n for n in graph.ops if n.kind == "all_reduce"]
        assert first == {backward[-1].id} | ({all_reduces[-1].id} if devices > 1 else set())
    assert len(changes) == devices * (3 + 1 + (devices > 1))  # 4 updates: 3 links, 1-2 anchors
    assert changes[0].startswith("device 0: momentum (") and " waits for " in changes[0]
    # every node still comes after the nodes it waits for (the scheduler's sequential order)
    position = {n.id: i for i, n in enumerate(new.ops)}
    for node in new.ops:
        for var in node.inputs:
            assert var.producer is None or position[var.producer.id] < position[node.id]


def test_nothing_to_chain_with_one_fused_update_or_without_a_backward_pass():
    graph = graph_of(2, fuse_all_optimizer_ops=True)
    assert backward_optimizer_deps(graph) == (graph, [])
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[8])
        fluid.layers.fc(fluid.layers.fc(x, 4, act="relu"), 2)
    graph = build_ssa_graph(main, [fluid.CPUPlace()] * 2, fluid.BuildStrategy(), None)
    assert backward_optimizer_deps(graph) == (graph, [])


def test_regularized_updates_chain_their_first_optimizer_op():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[4])
        loss = fluid.layers.mean(fluid.layers.fc(fluid.layers.fc(x, 3), 1))
        fluid.optimizer.SGD(0.1, regularization=fluid.regularizer.L2Decay(1e-3)).minimize(loss)
    graph = build_ssa_graph(main, [fluid.CPUPlace()], fluid.BuildStrategy(), loss.name)
    new, changes = backward_optimizer_deps(graph)
    chained = [n for n in new.ops if waits_for(n) - waits_for(next(o for o in graph.ops if o.id == n.id))]
    # the chain's links are the first optimizer op of each parameter (the decay term), never an update
    # its own decay op already leads to
    assert len(chained) == 4 and all(n.op.role == OpRole.Optimize for n in chained)
    assert not any(n.op.type == "sgd" for n in chained)


def test_on_from_the_strategy_in_order():
    assert "enable_backward_optimizer_op_deps" not in fluid.BuildStrategy.NO_EFFECT_YET
    assert passes.ORDER[-1] == "enable_backward_optimizer_op_deps"
    strategy = fluid.BuildStrategy()
    strategy.enable_backward_optimizer_op_deps = True
    strategy.memory_optimize = True
    graph = graph_of(2)
    new, report = passes.apply(graph, [], strategy)
    assert [name for name, _ in report] == ["memory_optimize", "enable_backward_optimizer_op_deps"]
    assert len(new.deps) > len(passes.apply(graph, [], fluid.BuildStrategy(memory_optimize=True))[0].deps)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("devices", [1, 2])
def test_training_is_bitwise_unchanged(model, devices, fixed_threads):
    losses, final = train(model, devices, "momentum")
    losses_dep, final_dep = train(model, devices, "momentum", enable_backward_optimizer_op_deps=True)
    for a, b in zip(losses, losses_dep):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_dep[name], err_msg=name)


@pytest.mark.parametrize(
    "options",
    [{"reduce_strategy": "Reduce"}, {"memory_optimize": True, "enable_inplace": True, "fuse_all_reduce_ops": True}],
)
def test_training_with_reduce_and_with_the_other_passes(options, fixed_threads):
    losses, final = train("mlp", 2, "adam", **options)
    losses_dep, final_dep = train("mlp", 2, "adam", enable_backward_optimizer_op_deps=True, **options)
    for a, b in zip(losses, losses_dep):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_dep[name], err_msg=name)


def test_pe_graph_passes_shows_the_dependencies():
    proc = pe(
        "graph",
        "configs/mnist_mlp.yaml",
        "--passes",
        "--devices",
        "2",
        "build_strategy.enable_backward_optimizer_op_deps=true",
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("enable_backward_optimizer_op_deps: ")))
    assert lines[at] != "enable_backward_optimizer_op_deps: 0 changes" and "off" not in lines[at]
    # (CPU devices update each parameter once, on its owner device: compiler/ssa_graph.py)
    assert re.match(r"  device \d: momentum \(", lines[at + 1]) and " waits for " in lines[at + 1]
