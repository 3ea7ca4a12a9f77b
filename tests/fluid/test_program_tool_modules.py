"""The modules of Fluid 1.8.5's wheel that build, rewrite or inspect programs, under ``pe fluid``
(issue 76, item 3): paddle.complex, mixed_precision.fp16_utils, contrib.model_stat,
transpiler.collective, net_drawer, and fluid.core's plain values and helpers. Expected values marked
"Fluid 1.8.5" were printed by the wheel on the same programs."""

import importlib

import numpy as np
import pytest

from pe_cli.fluid import runner

runner.install()
fluid = importlib.import_module("paddle.fluid")
paddle = importlib.import_module("paddle")


def _run(main, startup, feed, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch)


def test_complex_arithmetic_in_a_static_program_gives_fluids_values():
    from paddle.fluid.framework import ComplexVariable

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        a, b = fluid.data("a", [2, 2]), fluid.data("b", [2, 2])
        x = ComplexVariable(a, b)
        y, z = paddle.complex.elementwise_mul(x, x), paddle.complex.matmul(x, a)
        s, t = paddle.complex.sum(x), paddle.complex.transpose(x, [1, 0])
        q = paddle.complex.elementwise_div(x, ComplexVariable(b + 1.0, a))
    assert (y.dtype, y.shape) == ("complex64", (2, 2))
    feed = {"a": np.array([[1.0, 2], [3, 4]], "float32"), "b": np.array([[0.0, 1], [1, 0]], "float32")}
    out = _run(main, startup, feed, [y.real, y.imag, z.real, z.imag, s.real, t.imag, q.real, q.imag])
    expected = [
        [[1, 3], [8, 16]],
        [[0, 4], [6, 0]],
        [[7, 10], [15, 22]],
        [[3, 4], [1, 2]],
        [10],
        [[0, 1], [1, 0]],
        [[0.5, 0.75], [0.69231, 0.23529]],
        [[-0.5, -0.25], [-0.53846, -0.94118]],
    ]  # Fluid 1.8.5
    for got, want in zip(out, expected):
        np.testing.assert_allclose(got, want, atol=1e-5)
    with pytest.raises(ValueError, match="must be ComplexVariable"):
        paddle.complex.elementwise_add(a, b)


def test_update_loss_scaling_steps_as_fluids():
    from paddle.fluid.contrib.mixed_precision.fp16_utils import update_loss_scaling

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        finite = fluid.data("finite", [1], "bool")
        scale = fluid.layers.create_global_var([1], 8.0, "float32", persistable=True, name="scale")
        good = fluid.layers.create_global_var([1], 0, "int32", persistable=True, name="good")
        bad = fluid.layers.create_global_var([1], 0, "int32", persistable=True, name="bad")
        update_loss_scaling(
            finite,
            scale,
            good,
            bad,
            fluid.layers.fill_constant([1], "int32", 2),
            fluid.layers.fill_constant([1], "int32", 1),
            2.0,
            0.5,
        )
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    seen = [
        tuple(
            int(v[0]) if v.dtype.kind == "i" else float(v[0])
            for v in exe.run(main, feed={"finite": np.array([f])}, fetch_list=[scale, good, bad])
        )
        for f in (True, True, True, False, False, True, False, False, False)
    ]
    assert seen == [
        (8.0, 1, 0),
        (8.0, 2, 0),
        (16.0, 0, 0),
        (16.0, 0, 1),
        (8.0, 0, 0),
        (8.0, 1, 0),
        (8.0, 0, 1),
        (4.0, 0, 0),
        (4.0, 0, 1),
    ]  # Fluid 1.8.5


FLUID_SUMMARY = """\
+-----+------------+-------------+-------------+--------+-------+
| No. |       TYPE |       INPUT |      OUTPUT | PARAMs | FLOPs |
+-----+------------+-------------+-------------+--------+-------+
|   0 |     conv2d | (3, 16, 16) | (4, 16, 16) |    108 | 55296 |
|   1 |       relu | (4, 16, 16) | (4, 16, 16) |      0 | -1024 |
|   2 | batch_norm | (4, 16, 16) | (4, 16, 16) |      8 |  2048 |
|   3 |     pool2d | (4, 16, 16) |   (4, 8, 8) |      0 |  1024 |
|   4 |        mul |   (4, 8, 8) |        (5,) |   1281 |  1280 |
|   5 |    sigmoid |        (5,) |        (5,) |      0 |    -5 |
+-----+------------+-------------+-------------+--------+-------+
Total PARAMs: 1397(0.0014M)
Total FLOPs: 58619(0.00G)
"""


def test_model_stat_summary_prints_fluids_table(capsys):
    from paddle.fluid.contrib.model_stat import summary

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 3, 16, 16])
        pool = fluid.layers.pool2d(
            fluid.layers.batch_norm(fluid.layers.conv2d(x, 4, 3, padding=1, act="relu")), 2, pool_stride=2
        )
        fluid.layers.fc(pool, 5, act="sigmoid")
    summary(main)
    assert capsys.readouterr().out.startswith(FLUID_SUMMARY)  # Fluid 1.8.5


def test_grad_allreduce_rewrites_the_program_for_a_ring():
    from paddle.fluid.transpiler.collective import GradAllReduce

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loss = fluid.layers.mean(fluid.layers.fc(fluid.data("x", [-1, 3]), 2))
        fluid.optimizer.SGD(0.1).minimize(loss)
    GradAllReduce(nrings=1).transpile(startup, main, 0, "127.0.0.1:1,127.0.0.1:2", "127.0.0.1:1", False)
    start_ops = [op.type for op in startup.global_block().ops]
    assert start_ops[-5:] == ["c_gen_nccl_id", "c_comm_init", "c_broadcast", "c_broadcast", "c_sync_comm_stream"]
    ops = main.global_block().ops
    types = [op.type for op in ops]
    assert types.count("c_allreduce_sum") == 2 and types.index("c_sync_comm_stream") < types.index("sgd")
    scale = ops[types.index("scale")]
    assert scale.attr("scale") == 0.5 and scale.input("X") == [loss.name + "@GRAD"]
    with pytest.raises(ValueError, match="must > 1"):
        GradAllReduce().transpile(startup, main, 0, ["127.0.0.1:1"], "127.0.0.1:1", False)


def test_net_drawer_and_graphviz_write_dot(tmp_path):
    from paddle.fluid import net_drawer

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fluid.layers.fc(fluid.data("x", [-1, 3]), 2)
    net_drawer.draw_graph(startup, main, filename=str(tmp_path / "net.gv"))
    dot = (tmp_path / "net.gv").read_text()
    assert dot.startswith("digraph G {") and "mul_2" in dot and "-> elementwise_add_3" in dot


def test_core_plain_values_and_graph_helpers():
    core = fluid.core
    assert (int(core.kAll), int(core.kCPU), int(core.EventSortingKey.kAve)) == (3, 1, 5)  # Fluid 1.8.5
    assert (core.kEmptyVarName(), core.kGradVarSuffix(), core.loaded_var_suffix()) == ("@EMPTY@", "@GRAD", "@LOADED")
    assert core.size_of_dtype(core.VarDesc.VarType.FP32) == 4 and not core.is_compiled_with_mkldnn()
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        fluid.layers.relu(fluid.layers.fc(fluid.data("x", [-1, 3]), 2))
    graph = core.Graph(main.desc)
    order = [n.name() for n in core.topology_sort(graph)]
    assert order == ["mul", "elementwise_add", "relu"] and not core.has_circle(graph) and core.graph_num(graph) == 1
    with pytest.raises(NotImplementedError, match="pslib"):
        core.BoxPS()
