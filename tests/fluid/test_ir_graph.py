"""fluid.framework.IrGraph (pe_cli/fluid/ir_graph.py): Fluid's Python view of core.Graph, through which
slim's passes rewrite programs."""

import os

import numpy as np

import pe_cli.fluid as fluid
from pe_cli.fluid import core
from pe_cli.fluid.framework import IrGraph


def _program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [3])
        fluid.layers.relu(fluid.layers.fc(x, 2))
    return main, startup


def test_a_pass_inserts_an_op_and_the_program_runs_it(tmp_path):
    """A scale op inserted between mul and its output's reader, as slim's passes insert theirs."""
    main, startup = _program()
    graph = IrGraph(core.Graph(main.desc), for_test=True)
    mul = next(op for op in graph.all_op_nodes() if op.name() == "mul")
    out = mul.outputs[0]
    add = out.outputs[0]
    scaled = graph.create_var_node(
        name=out.name() + ".scaled", var_type=out.type(), shape=out.shape(), var_dtype=out.dtype()
    )
    scale = graph.create_op_node(
        op_type="scale", attrs={"scale": 2.0, "op_role": 0}, inputs={"X": out}, outputs={"Out": scaled}
    )
    graph.link_to(out, scale)
    graph.link_to(scale, scaled)
    graph.update_input_link(out, scaled, add)
    assert add.input("X") == [scaled.name()] and len(graph.all_persistable_nodes()) == 2
    assert [n.name() for n in graph.topology_sort()] == ["mul", "scale", "elementwise_add", "relu"]
    program = graph.to_program()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    x = np.ones((1, 3), "float32")
    with fluid.scope_guard(scope):
        exe.run(startup)
        fc_out = main.global_block().ops[1].output("Out")[0]
        (before,) = exe.run(main, feed={"x": x}, fetch_list=[fc_out])
        (after,) = exe.run(program, feed={"x": x}, fetch_list=[fc_out])
        w, b = (np.array(scope.find_var(n).get_tensor()) for n in ("fc_0.w_0", "fc_0.b_0"))
    np.testing.assert_allclose(after, 2 * (x @ w) + b, rtol=1e-6)
    np.testing.assert_allclose(before, x @ w + b, rtol=1e-6)
    graph.draw(str(tmp_path), "g", marked_nodes={scale})
    assert "scale" in (tmp_path / "g.dot").read_text()


def test_persistable_nodes_save_and_load(tmp_path):
    main, startup = _program()
    graph = IrGraph(core.Graph(main.desc))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()) as _:
        scope = fluid.global_scope()
        exe.run(startup)
        w = np.array(scope.find_var("fc_0.w_0").get_tensor())
        fluid.io._save_persistable_nodes(exe, str(tmp_path), graph)
        scope.find_var("fc_0.w_0").get_tensor().set(np.zeros_like(w), fluid.CPUPlace())
        fluid.io._load_persistable_nodes(exe, str(tmp_path), graph)
        np.testing.assert_array_equal(np.array(scope.find_var("fc_0.w_0").get_tensor()), w)
    assert fluid.framework._get_var("fc_0.w_0", main).shape == (3, 2)
    assert sorted(os.listdir(tmp_path)) == ["fc_0.b_0", "fc_0.w_0"]  # one file per persistable node
