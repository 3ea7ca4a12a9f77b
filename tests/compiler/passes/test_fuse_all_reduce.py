"""fuse_all_reduce_ops between devices (pe_cli/compiler/fused_all_reduce.py): the gradients are summed
in buckets, one fused_all_reduce node each instead of one all_reduce node per gradient, and training
gives bitwise the losses and parameters of the per-gradient all-reduce (MLP, LeNet-5, batch-norm CNN
on 2 CPU devices, alone and with the other fusions)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import build_ssa_graph, fused_all_reduce
from pe_cli.compiler.ssa_nodes import ALL_REDUCE
from pe_cli.kernels.cpu.collectives import all_reduce, all_reduce_coalesced

from tests.compiler.passes.test_memory import MODELS, build, train


def graph_of(model, devices=2, **options):
    main, _, loss = build(model)
    strategy = fluid.BuildStrategy()
    for key, value in options.items():
        setattr(strategy, key, value)
    return build_ssa_graph(main, [fluid.CPUPlace()] * devices, strategy, loss.name)


def kinds(graph):
    return [n.kind for n in graph.ops]


def test_one_node_sums_every_gradient_of_the_mlp():
    plain, fused = graph_of("mlp"), graph_of("mlp", fuse_all_reduce_ops=True)
    grads = [g for _, g in plain.param_grads]
    assert kinds(plain).count(ALL_REDUCE) == len(grads) == 4
    assert ALL_REDUCE not in kinds(fused)
    nodes = [n for n in fused.ops if n.kind == fused_all_reduce.FUSED_ALL_REDUCE]
    assert len(nodes) == 1 and sorted(nodes[0].attrs["vars"]) == sorted(grads)
    assert nodes[0].devices == [0, 1]
    # it runs after every op writing one of the gradients and before every op reading one
    position = {n.id: i for i, n in enumerate(fused.ops)}
    for node in fused.ops:
        if node.kind == "compute" and set(node.op.output_arg_names) & set(grads):
            assert position[node.id] < position[nodes[0].id]
        if node.kind == "compute" and set(node.op.input_arg_names) & set(grads):
            assert position[node.id] > position[nodes[0].id]


def test_buckets_close_at_the_size_limit(monkeypatch):
    monkeypatch.setattr(fused_all_reduce, "BUCKET_BYTES", 8 * 10 * 4)  # bytes of the MLP's [8, 10] weight
    graph = graph_of("mlp", fuse_all_reduce_ops=True)
    buckets = [n.attrs["vars"] for n in graph.ops if n.kind == fused_all_reduce.FUSED_ALL_REDUCE]
    assert len(buckets) > 1 and sorted(sum(buckets, [])) == sorted(g for _, g in graph.param_grads)


def test_fluids_group_and_memory_size_flags_bound_the_buckets(monkeypatch):
    monkeypatch.setattr(fused_all_reduce, "LIMITS", dict(fused_all_reduce.LIMITS))
    grads = sorted(g for _, g in graph_of("mlp").param_grads)
    fluid.core._set_fuse_parameter_group_size(3)
    fluid.core._set_fuse_parameter_memory_size(131072)  # MB: no bound here
    buckets = [
        n.attrs["vars"]
        for n in graph_of("mlp", fuse_all_reduce_ops=True).ops
        if n.kind == fused_all_reduce.FUSED_ALL_REDUCE
    ]
    assert [len(b) for b in buckets] == [3, 1] and sorted(sum(buckets, [])) == grads
    fluid.core._set_fuse_parameter_group_size(-1)
    fluid.core._set_fuse_parameter_memory_size(8 * 10 * 4 / (1 << 20))  # the MLP's [8, 10] weight
    buckets = [
        n.attrs["vars"]
        for n in graph_of("mlp", fuse_all_reduce_ops=True).ops
        if n.kind == fused_all_reduce.FUSED_ALL_REDUCE
    ]
    assert len(buckets) > 1 and sorted(sum(buckets, [])) == grads
    fluid.core._set_fuse_parameter_memory_size(0)  # back to pe's 32 MiB: one bucket
    assert (
        len([n for n in graph_of("mlp", fuse_all_reduce_ops=True).ops if n.kind == fused_all_reduce.FUSED_ALL_REDUCE])
        == 1
    )


def test_one_device_and_reduce_keep_their_nodes():
    assert fused_all_reduce.FUSED_ALL_REDUCE not in kinds(graph_of("mlp", 1, fuse_all_reduce_ops=True))
    reduce = graph_of("mlp", reduce_strategy=fluid.BuildStrategy.ReduceStrategy.Reduce, fuse_all_reduce_ops=True)
    assert fused_all_reduce.FUSED_ALL_REDUCE not in kinds(reduce) and "reduce" in kinds(reduce)


def test_the_coalesced_sum_is_the_per_array_sum():
    rng = np.random.default_rng(3)
    groups = [[rng.normal(size=(3, 4)).astype("float32"), rng.normal(size=5).astype("float32")] for _ in range(3)]
    totals = all_reduce_coalesced(groups, [0, 1, 2], [0, 1, 2])
    for k in range(2):
        expected = all_reduce([g[k] for g in groups], [0, 1, 2], [0])[0]
        for t in range(3):
            np.testing.assert_array_equal(totals[t][k], expected)
            assert totals[t][k].shape == expected.shape


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("all_fusions", [False, True])
def test_training_is_bitwise_unchanged_on_two_devices(model, all_fusions, fixed_threads):
    losses, final = train(model, 2, None)
    options = {"fuse_all_reduce_ops": True, "fuse_elewise_add_act_ops": all_fusions, "fuse_bn_act_ops": all_fusions}
    losses_fused, final_fused = train(model, 2, None, **options)
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)
