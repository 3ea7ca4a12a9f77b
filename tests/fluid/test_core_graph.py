"""core.Graph: the IR graph of a program's global block (op and variable nodes, SSA values,
attributes), and CompiledProgram of a Graph, which holds no Program (as in Fluid)."""
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
    assert names == ["elementwise_add", "relu", "x", "x", "y", "z"]     # x written: a second value
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


def test_compiled_program_of_a_graph_holds_no_program():
    compiled = fluid.CompiledProgram(core.Graph(_program()))
    with pytest.raises(TypeError, match="core.Graph"):
        fluid.io._get_valid_program(compiled)
    with pytest.raises(TypeError):
        fluid.io._get_valid_program("program")
    with pytest.raises(PeError, match="core.Graph"):
        fluid.Executor(fluid.CPUPlace()).run(compiled)
