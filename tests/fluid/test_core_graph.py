"""core.Graph: the IR graph of a program's global block (op and variable nodes, SSA values,
attributes), and CompiledProgram of a Graph, which holds no Program (as in Fluid)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import core


def _program():
    prog = core.ProgramDesc()
    block = prog.block(0)
    for name in (b"x", b"y"):
        block.var(name).set_shape([2, 3])
    for op_type, ins, out in [("elementwise_add", ["x", "y"], "x"), ("relu", ["x"], "z")]:
        op = block.append_op()
        op.set_type(op_type)
        op.set_input("X", ins[:1])
        if len(ins) > 1:
            op.set_input("Y", ins[1:])
        op.set_output("Out", [out])
    return prog


def test_graph_nodes_are_ssa_values_and_edges():
    graph = core.Graph(_program())
    names = sorted(n.name() for n in graph.nodes())
    assert names == ["elementwise_add", "relu", "x", "x", "y", "z"]  # x written: a second value
    relu = next(n for n in graph.nodes() if n.name() == "relu")
    (x_after,) = relu.inputs
    assert x_after.inputs[0].name() == "elementwise_add" and x_after.var().shape() == [2, 3]
    assert relu.op().type() == "relu" and relu.node_type() == core.Node.Type.Operation
    assert [graph.retrieve_node(i) for i in range(6)] == sorted(graph.nodes(), key=lambda n: n.id())
    ctrl = graph.create_control_dep_var()
    assert ctrl.name() == "__control_var@6" and ctrl.is_ctrl_var()
    assert len(graph.release_nodes()) == 7 and not graph.nodes()


def test_graph_attributes():
    graph = core.Graph(_program(), 1)
    assert sorted(n.name() for n in graph.nodes()) == ["relu", "x", "z"]
    graph.set("n", 3)
    assert graph.has("n") and graph.get_int("n") == 3
    graph.erase("n")
    assert not graph.has("n")
    with pytest.raises(PeError, match="no attribute 'n'"):
        graph.get_int("n")


def test_compiled_program_of_a_graph_holds_no_program_and_runs_the_graph():
    """As in Fluid: no Program to save from, yet it runs (the graph made a Program at its first run)."""
    compiled = fluid.CompiledProgram(core.Graph(_program()))
    with pytest.raises(TypeError, match="core.Graph"):
        fluid.io._get_valid_program(compiled)
    with pytest.raises(TypeError, match=r"fluid\.io: main_program must be a Program, got str"):
        fluid.io._get_valid_program("program")
    x, y = np.ones((2, 3), "float32"), np.full((2, 3), -3.0, "float32")
    (z,) = fluid.Executor(fluid.CPUPlace()).run(compiled, feed={"x": x, "y": y}, fetch_list=["z"], scope=fluid.Scope())
    np.testing.assert_array_equal(z, np.zeros((2, 3)))


def _train_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [4])
        loss = fluid.layers.mean(fluid.layers.fc(x, 3, act="relu"))
        fluid.optimizer.Adam(0.1).minimize(loss)
    return main, startup, loss


def test_graph_of_a_training_program_as_fluid_builds_it():
    """Fluid 1.8.5's graph of this program (measured): 45 nodes, 11 ops, 2 control variables (each Adam
    update after the grad op that reads the parameter it overwrites), one part, no circle; to_program
    gives the ops back in order. The nodes hold copies: editing the graph leaves the program alone."""
    main, _, _ = _train_program()
    graph = core.Graph(main.desc)
    assert len(graph.nodes()) == 45 and sum(n.is_ctrl_var() for n in graph.nodes()) == 2
    assert sum(n.is_op() for n in graph.nodes()) == 11 and not core.has_circle(graph) and core.graph_num(graph) == 1
    assert len(core.build_adjacency_list(graph)) == 11
    relu = next(n for n in graph.nodes() if n.name() == "relu")
    relu.op()._rename_input(relu.op().input("X")[0], "elsewhere")
    assert main.global_block().ops[2].input("X") == ["fc_0.tmp_1"]
    program = fluid.Program()
    converter = core.get_pass("graph_to_program_pass")
    converter.set_not_owned("program", program.desc)
    converter.apply(graph)
    assert [op.type for op in program.global_block().ops] == [op.type for op in main.global_block().ops]
    assert program.global_block().ops[2].input("X") == ["elsewhere"]


def test_a_graph_trains_as_its_program():
    main, startup, loss = _train_program()
    feed = {"x": np.arange(8, dtype="float32").reshape(2, 4) / 8}
    losses = []
    for program in (main, fluid.CompiledProgram(core.Graph(main.desc)).with_data_parallel(loss_name=loss.name)):
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        with fluid.scope_guard(scope):
            fluid.default_startup_program().random_seed = 1
            startup.random_seed = 1
            exe.run(startup)
            losses.append([exe.run(program, feed=feed, fetch_list=[loss])[0] for _ in range(3)])
    np.testing.assert_array_equal(losses[0], losses[1])
