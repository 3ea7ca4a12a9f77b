"""The multi-device SSA graph, its DOT text, and the strategies (no execution here)."""

import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import (
    BuildStrategy,
    ExecutionStrategy,
    GradientScaleStrategy,
    ReduceStrategy,
    build_ssa_graph,
    to_dot,
)
from pe_cli.compiler.ssa_graph import ALL_REDUCE, BROADCAST, COMPUTE, FETCH, REDUCE, SCALE_LOSS_GRAD
from pe_cli.base.errors import PeError

from parallel_nets import build


def graph(n, **options):
    main, _, loss = build()
    return main, loss, build_ssa_graph(main, fluid.cpu_places(n), BuildStrategy(**options), loss.name)


def topo_ok(g):
    """Every node comes after the producers of its inputs: build order is a valid schedule."""
    position = {op.id: i for i, op in enumerate(g.ops)}
    return all(position[v.producer.id] < position[op.id] for op in g.ops for v in op.inputs if v.producer)


def test_one_compute_node_per_op_per_device_and_one_all_reduce_per_parameter():
    main, loss, g = graph(3)
    ops = main.global_block().ops
    params = [p.name for p in main.all_parameters()]
    assert g.count(COMPUTE) == 3 * (len(ops) - 1)  # the loss-grad filler becomes scale_loss_grad
    assert g.count(SCALE_LOSS_GRAD) == 3
    assert g.count(ALL_REDUCE) == len(params)
    assert {op.attrs["var"] for op in g.ops if op.kind == ALL_REDUCE} == {p + "@GRAD" for p in params}
    assert sorted(p for p, _ in g.param_grads) == sorted(params)
    assert topo_ok(g)
    for op in g.ops:
        if op.kind == ALL_REDUCE:
            assert [v.device for v in op.inputs if not v.is_dep] == [0, 1, 2]
            assert sorted(v.device for v in op.outputs if not v.is_dep) == [0, 1, 2]


def test_versions_are_ssa_each_write_makes_a_new_version():
    main, _, g = graph(2)
    w = main.all_parameters()[0].name
    versions = g.vars[(1, w)]
    assert [v.version for v in versions] == list(range(len(versions)))
    assert versions[0].producer is None  # read from the scope
    assert versions[-1].producer.op.type == "sgd"  # the update writes a new version
    assert all(v.device == 1 for v in versions)
    grad = g.vars[(0, w + "@GRAD")]
    assert grad[-1].producer.kind == ALL_REDUCE and grad[-2].producer.kind == COMPUTE


def test_write_after_read_edges_order_the_readers_of_a_parameter_before_its_update():
    main, _, g = graph(2)
    for w in (p.name for p in main.all_parameters()):
        for d in range(2):
            v0, v1 = g.vars[(d, w)][0], g.vars[(d, w)][1]
            sgd = v1.producer
            readers = [r for r in v0.consumers if r is not sgd]
            assert readers  # forward and backward read the parameter
            for r in readers:
                assert any(dep.is_dep and sgd in dep.consumers for dep in r.outputs), (r, sgd)


@pytest.mark.parametrize("how, value", [("CoeffNumDevice", 0.25), ("One", 1.0)])
def test_scale_loss_grad_value_follows_the_strategy(how, value):
    _, loss, g = graph(4, gradient_scale_strategy=how)
    nodes = [op for op in g.ops if op.kind == SCALE_LOSS_GRAD]
    assert [n.device for n in nodes] == [0, 1, 2, 3]
    assert all(n.op.attrs["value"] == value and n.op.output_arg_names == [loss.name + "@GRAD"] for n in nodes)


def test_customized_scale_leaves_the_loss_gradient_to_the_feed():
    _, loss, g = graph(2, gradient_scale_strategy=GradientScaleStrategy.Customized)
    assert g.count(SCALE_LOSS_GRAD) == 0
    assert g.fed_loss_grad == loss.name + "@GRAD"
    assert loss.name + "@GRAD" in g.scope_reads(0) and loss.name + "@GRAD" in g.scope_reads(1)


def test_reduce_puts_each_update_on_the_owner_and_broadcasts_the_parameter():
    main, _, g = graph(2, reduce_strategy=ReduceStrategy.Reduce)
    params = {p.name: p for p in main.all_parameters()}
    assert sorted(g.owners) == sorted(params) and set(g.owners.values()) == {0, 1}
    assert g.count(REDUCE) == len(params) and g.count(ALL_REDUCE) == 0
    sgd = [op for op in g.ops if op.kind == COMPUTE and op.op.type == "sgd"]
    assert len(sgd) == len(params)  # one update per parameter, not per device
    for op in sgd:
        assert op.device == g.owners[op.op.input("Param")[0]]
    bcast = {op.attrs["var"]: op for op in g.ops if op.kind == BROADCAST}
    assert set(bcast) == set(params)
    for name, op in bcast.items():
        root = g.owners[name]
        assert op.attrs["root"] == root and [v.device for v in op.outputs if not v.is_dep] == [1 - root]


def test_reduce_owners_are_balanced_by_size():
    main, _, g = graph(2, reduce_strategy="Reduce")
    sizes = {p.name: abs(int(__import__("numpy").prod(p.shape))) for p in main.all_parameters()}
    load = [sum(s for p, s in sizes.items() if g.owners[p] == d) for d in (0, 1)]
    biggest = max(sizes.values())
    assert abs(load[0] - load[1]) <= biggest


def test_one_device_graph_is_the_program():
    main, _, g = graph(1)
    assert g.count(ALL_REDUCE) == g.count(REDUCE) == g.count(BROADCAST) == 0
    assert [op.op.type for op in g.ops] == [op.type for op in main.global_block().ops]


def test_fetch_nodes_read_the_final_version_on_every_device_and_leave_the_graph_unchanged():
    main, loss, g = graph(2)
    before = len(g.ops)
    w = main.all_parameters()[0].name
    fg = g.with_fetches([loss.name, w])
    assert len(g.ops) == before
    fetches = [op for op in fg.ops if op.kind == FETCH]
    assert [f.attrs["var"] for f in fetches] == [loss.name, w]
    assert fetches[1].inputs == [g.latest(0, w), g.latest(1, w)]
    assert topo_ok(fg)


def test_sequential_execution_chains_each_device():
    _, _, g = graph(2, enable_sequential_execution=True)
    for d in range(2):
        nodes = [op for op in g.ops if d in op.devices]
        for a, b in zip(nodes, nodes[1:]):
            assert any(v.is_dep and b in v.consumers for v in a.outputs) or any(v.producer is a for v in b.inputs), (
                a,
                b,
            )


def test_no_loss_name_means_no_aggregation():
    main, _, _ = build()
    g = build_ssa_graph(main, fluid.cpu_places(2), BuildStrategy(), None)
    assert g.count(ALL_REDUCE) == g.count(SCALE_LOSS_GRAD) == 0


def test_loss_name_errors():
    main, _, loss = build()
    with pytest.raises(PeError, match="did you mean"):
        build_ssa_graph(main, fluid.cpu_places(2), BuildStrategy(), loss.name + "x")
    other = main.global_block().ops[0].output_arg_names[0]
    with pytest.raises(PeError, match="not the loss this program was differentiated for"):
        build_ssa_graph(main, fluid.cpu_places(2), BuildStrategy(), other)


def test_to_dot_draws_every_node_and_edge():
    main, loss, g = graph(2, reduce_strategy="Reduce")
    text = to_dot(g.with_fetches([loss.name]))
    assert text.startswith('digraph "ssa_graph" {') and text.rstrip().endswith("}")
    assert "cluster_dev0" in text and "cluster_dev1" in text
    for kind in ("reduce -> dev", "broadcast dev", "scale_loss_grad x0.5", "fetch", "sgd", "mul"):
        assert kind in text
    assert "style=dashed" in text  # control dependencies
    assert text.count("->") >= sum(len(op.inputs) for op in g.ops)


def test_build_strategy_options_and_errors():
    bs = fluid.BuildStrategy()
    assert bs.reduce_strategy == fluid.BuildStrategy.ReduceStrategy.AllReduce
    assert bs.gradient_scale_strategy == fluid.BuildStrategy.GradientScaleStrategy.CoeffNumDevice
    bs.reduce_strategy = fluid.BuildStrategy.ReduceStrategy.Reduce
    bs.gradient_scale_strategy = "one"
    assert bs.gradient_scale_strategy == GradientScaleStrategy.One
    for name in (
        "debug_graphviz_path",
        "fuse_elewise_add_act_ops",
        "memory_optimize",
        "remove_unnecessary_lock",
        "enable_inplace",
        "fuse_all_reduce_ops",
        "sync_batch_norm",
        "num_trainers",
        "trainer_id",
    ):
        getattr(bs, name)
    with pytest.raises(AttributeError, match="did you mean 'fuse_elewise_add_act_ops'"):
        bs.fuse_elementwise_add_act_ops = True
    with pytest.raises(AttributeError, match="did you mean 'reduce_strategy'"):
        bs.reduce_stratgy
    with pytest.raises(ValueError, match="ReduceStrategy.AllReduce"):
        bs.reduce_strategy = "ring"
    with pytest.raises(TypeError, match=r"BuildStrategy\.memory_optimize must be True or False, got 'yes'"):
        bs.memory_optimize = "yes"
    es = fluid.ExecutionStrategy()
    assert (es.num_threads, es.num_iteration_per_drop_scope, es.allow_op_delay) == (0, 100, False)
    with pytest.raises(AttributeError, match="did you mean 'num_threads'"):
        es.num_thread = 4
    with pytest.raises(ValueError, match=r"ExecutionStrategy\.num_iteration_per_drop_scope must be >= 1, got 0"):
        es.num_iteration_per_drop_scope = 0


def test_strategies_freeze_once_a_graph_is_built():
    main, _, loss = build()
    bs, es = BuildStrategy(), ExecutionStrategy()
    fluid.ParallelExecutor(
        use_cuda=False, loss_name=loss.name, main_program=main, build_strategy=bs, exec_strategy=es
    ).close()
    with pytest.raises(PeError, match="frozen"):
        bs.reduce_strategy = ReduceStrategy.Reduce
    with pytest.raises(PeError, match="frozen"):
        es.num_threads = 2
    assert bs.frozen and es.frozen


def test_trainer_id_beyond_num_trainers_is_refused():
    main, _, loss = build()
    with pytest.raises(PeError, match="trainer_id=2 must be < num_trainers=2"):
        build_ssa_graph(main, fluid.cpu_places(2), BuildStrategy(num_trainers=2, trainer_id=2), loss.name)
