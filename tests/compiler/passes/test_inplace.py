"""The enable_inplace pass (pe_cli/compiler/passes/inplace.py): which ops it lets write over a dead
input on a small graph, that the run-time guard never overwrites an array something else holds,
and that training with it is bitwise training without it (MLP, LeNet-5, batch-norm CNN; 1 and 2
devices, alone and with memory_optimize)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import build_ssa_graph, passes
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.ops import define, registry

from parallel_nets import batch
from tests.compiler.passes.test_memory import MODELS, build, train


def forward_graph():
    main, _, loss = build("mlp", train=False)
    strategy = fluid.BuildStrategy()
    strategy.enable_inplace = True
    graph = build_ssa_graph(main, [fluid.CPUPlace()], strategy, None).with_fetches([loss.name])
    return main, loss, strategy, graph


def test_it_marks_exactly_the_declared_ops_whose_input_dies():
    main, loss, strategy, graph = forward_graph()
    marked, report = passes.apply(graph, [loss.name], strategy)
    expected = [
        f"{op.type} on device 0 writes {op.output('Out')[0]} over {op.input('X')[0]}"
        for op in main.global_block().ops
        if op.type in ("elementwise_add", "relu")
    ]
    assert len(expected) == 3  # two fc biases and the hidden relu
    assert report == [("enable_inplace", expected)]
    assert [n.attrs.get("inplace", False) for n in graph.ops] == [False] * len(graph.ops)  # unchanged
    assert [n.id for n in marked.ops] == [n.id for n in graph.ops]
    # the fetched loss's producer, and ops with no declaration (mul, softmax...), are never marked
    for node in marked.ops:
        if node.attrs.get("inplace"):
            assert registry.get(node.op.type).inplace and loss.name not in node.op.input_arg_names


def test_training_keeps_forward_values_the_gradients_read():
    main, _, loss = build("mlp")
    strategy = fluid.BuildStrategy()
    strategy.enable_inplace = True
    graph = build_ssa_graph(main, [fluid.CPUPlace()] * 2, strategy, loss.name).with_fetches([loss.name])
    _, [(_, changes)] = passes.apply(graph, [loss.name], strategy)
    # relu writes over its input, the bias add's Out, which no gradient op reads (elementwise_add_grad reads
    # X, Y and Out@GRAD, as Fluid's); nothing writes over a value a gradient op reads (relu_grad over dOut)
    read = {n for op in main.global_block().ops if op.type.endswith("_grad") for n in op.input_arg_names}
    assert changes and all(
        line.startswith("relu_grad on device ") or line.split(" over ")[1] not in read for line in changes
    )
    assert any(line.startswith("relu on device ") for line in changes)


def test_the_kernel_writes_over_a_dead_input_at_run_time():
    main, startup, loss = build("mlp", train=False)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    feed = batch("mlp", 8)
    (expected,) = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    strategy = fluid.BuildStrategy()
    strategy.enable_inplace = True
    compiled = fluid.CompiledProgram(main).with_data_parallel(build_strategy=strategy, places=[fluid.CPUPlace()])
    (got,) = exe.run(compiled, feed=feed, fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(got, expected)
    ops = main.global_block().ops
    add, relu = next(op for op in ops if op.type == "elementwise_add"), next(op for op in ops if op.type == "relu")
    local = compiled._engine.exec_scopes[0]
    # the first bias add writes over the product (mul's Out, a buffer of its own, dead after the add); the
    # relu after it writes over the add's Out, dead after it too: one array for the three
    biased, product = local.get_array(add.output("Out")[0]), local.get_array(add.input("X")[0])
    out, dead = local.get_array(relu.output("Out")[0]), local.get_array(relu.input("X")[0])
    assert biased is product and out is dead and dead is biased


def test_a_view_of_a_fetched_value_is_never_overwritten():
    """relu over a reshape of a fetched value: the pass sees the reshape's Out dead after the relu, but its
    array is the fetched value's memory (a view: the reshape's Meta), which the relu must leave."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [6])
        y = fluid.layers.fc(x, 4)
        out = fluid.layers.relu(fluid.layers.reshape(y, [-1, 2, 2]))
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    feed = {"x": np.random.default_rng(0).normal(size=(8, 6)).astype("float32")}
    expected = exe.run(main, feed=feed, fetch_list=[y, out], scope=scope)
    assert (expected[0] < 0).any()
    strategy = fluid.BuildStrategy()
    strategy.enable_inplace = True
    compiled = fluid.CompiledProgram(main).with_data_parallel(build_strategy=strategy, places=[fluid.CPUPlace()])
    graph = build_ssa_graph(main, [fluid.CPUPlace()], strategy, None).with_fetches([y.name, out.name])
    _, [(_, changes)] = passes.apply(graph, [y.name, out.name], strategy)
    assert any(line.startswith("relu on device 0") for line in changes)  # marked: the guard decides
    got = exe.run(compiled, feed=feed, fetch_list=[y, out], scope=scope)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


def test_the_guard_writes_over_only_an_array_the_run_owns():
    """The run-time guard (pe_cli/executor/donation.py): a plain dict (a sub-block's values, which
    carry no such state), a view, a planned step's buffer and an array a step made another name share
    are never written over; an array only the run's values hold is."""
    main, _, _ = build("mlp", train=False)
    relu = [op for op in main.global_block().ops if op.type == "relu"][0]
    step = OpStep(relu, fluid.CPUPlace(), inplace=True)
    x = np.array([[-1.0, 2.0]], "float32")
    name_in, name_out = relu.input("X")[0], relu.output("Out")[0]
    values = {name_in: x.copy()}
    run_step(step, values)
    assert values[name_out] is not values[name_in]
    base = np.array([[-1.0, 2.0, -3.0]], "float32")
    values = Values({name_in: base[:, :2]})  # a view
    run_step(step, values)
    np.testing.assert_array_equal(base, [[-1.0, 2.0, -3.0]])
    for state in ("kept", "shared"):
        values = Values({name_in: x.copy()})
        setattr(values, state, {name_in})
        run_step(step, values)
        np.testing.assert_array_equal(values[name_in], x, err_msg=state)
    values = Values({name_in: x.copy()})  # only the values hold it: written over
    run_step(step, values)
    assert values[name_out] is values[name_in]
    np.testing.assert_array_equal(values[name_out], [[0.0, 2.0]])


def test_registry_checks_the_declared_slots():
    with pytest.raises(RuntimeError, match="inplace"):
        define.register(
            "bad_inplace_op", kernel_module="elementwise", inputs=["X"], outputs=["Out"], inplace=("Out", "Y")
        )


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("devices", [1, 2])
@pytest.mark.parametrize("with_memory", [False, True])
def test_training_is_bitwise_unchanged(model, devices, with_memory):
    how = "strategy" if with_memory else None
    losses, final = train(model, devices, None)
    losses_opt, final_opt = train(model, devices, how, enable_inplace=True)
    for a, b in zip(losses, losses_opt):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_opt[name], err_msg=name)
