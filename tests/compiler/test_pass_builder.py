"""BuildStrategy._finalize_strategy_and_create_passes: Fluid's pass names for the options that are
on, and a graph_viz_pass added through the builder writes the data-parallel graph as DOT."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError


def test_builder_lists_the_options_passes_and_only_adds_graph_viz():
    strategy = fluid.BuildStrategy()
    strategy.fuse_elewise_add_act_ops = True
    builder = strategy._finalize_strategy_and_create_passes()
    names = [p.type() for p in builder.all_passes()]
    assert "fuse_elewise_add_act_pass" in names and "buffer_shared_inplace_pass" not in names
    with pytest.raises(
        PeError,
        match=r"BuildStrategy\.enable_inplace cannot be changed: the strategy is frozen once a graph has been built from it;",
    ):
        strategy.enable_inplace = True  # finalized: frozen, as in Fluid
    with pytest.raises(PeError, match="set that option to False"):
        builder.remove_pass(names.index("fuse_elewise_add_act_pass"))
    with pytest.raises(PeError, match="turned on by BuildStrategy options"):
        builder.append_pass("lock_free_optimize_pass")
    builder.insert_pass(0, "graph_viz_pass")
    builder.remove_pass(0)
    assert [p.type() for p in builder.all_passes()] == names


def test_graph_viz_pass_writes_the_graph(tmp_path, monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        loss = fluid.layers.mean(fluid.layers.fc(x, size=2))
        fluid.optimizer.SGD(0.1).minimize(loss)
    strategy = fluid.BuildStrategy()
    viz = strategy._finalize_strategy_and_create_passes().append_pass("graph_viz_pass")
    viz.set("graph_viz_path", str(tmp_path / "graph.dot"))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, build_strategy=strategy)
        exe.run(compiled, feed={"x": np.ones((4, 3), "float32")}, fetch_list=[loss])
    assert (tmp_path / "graph.dot").read_text().startswith("digraph")
