"""The fuse_all_optimizer_ops pass (pe_cli/compiler/passes/fuse_optimizer.py): which update ops it
fuses in a small program, what it leaves alone, and that training with it gives bitwise the losses
and parameters of training without it (SGD, Momentum, Adam; MLP, LeNet-5, batch-norm CNN; 1 and 2
devices, alone and with the other fusions)."""

import collections

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import build_ssa_graph
from pe_cli.compiler.passes.fuse_optimizer import fuse_all_optimizer_ops

from parallel_nets import batch, lenet5, mlp, params
from tests.cli.test_helpers import pe
from tests.compiler.passes.test_memory import MODELS, bn_cnn

OPTIMIZERS = {
    "sgd": lambda: fluid.optimizer.SGD(learning_rate=0.05),
    "momentum": lambda: fluid.optimizer.Momentum(learning_rate=0.05, momentum=0.9),
    "adam": lambda: fluid.optimizer.Adam(learning_rate=0.01),
}


def build(model, optimizer="momentum"):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        shape = [8] if model == "mlp" else [1, 28, 28]
        x = fluid.layers.data(name="x", shape=shape)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        loss = {"mlp": mlp, "lenet": lenet5, "bn_cnn": bn_cnn}[model](x, label)
        OPTIMIZERS[optimizer]().minimize(loss)
    return main, startup, loss


def train(model, devices, optimizer, **options):
    """Losses and final parameters of 4 steps, on the sequential Executor (devices=0) or on
    ``devices`` CPU devices with the BuildStrategy ``options``."""
    main, startup, loss = build(model, optimizer)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    for key, value in options.items():
        setattr(strategy, key, value)
    program = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=[fluid.CPUPlace()] * devices
    )
    data = "mlp" if model == "mlp" else "lenet"
    losses = [exe.run(program, feed=batch(data, 8, seed=i), fetch_list=[loss], scope=scope)[0] for i in range(4)]
    state = {
        v.name: np.array(scope.get_array(v.name), copy=True)
        for v in main.list_vars()
        if v.persistable and scope.find_var(v.name) is not None
    }
    return losses, dict(state, **params(main, scope))


def counts(program):
    return collections.Counter(op.type for op in program.global_block().ops)


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_the_updates_of_one_type_become_one_op(optimizer):
    main, _, _ = build("mlp", optimizer)
    before = counts(main)
    fused, changes = fuse_all_optimizer_ops(main)
    assert counts(main) == before  # the program given is unchanged
    after = counts(fused)
    assert before[optimizer] == 4 and after[optimizer] == 0 and after["fused_" + optimizer] == 1
    assert sum(after.values()) == sum(before.values()) - 3
    updates = [op for op in main.global_block().ops if op.type == optimizer]
    op = next(op for op in fused.global_block().ops if op.type == "fused_" + optimizer)
    assert fused.global_block().ops[-1] is op  # where the last update was
    for slot in list(op.inputs) + list(op.outputs):
        ours = op.input(slot) if slot in op.inputs else op.output(slot)
        theirs = [(u.input(slot) if slot in op.inputs else u.output(slot)) for u in updates]
        assert ours == (theirs[0] if slot == "LearningRate" else [t[0] for t in theirs]), slot
    assert {k: v for k, v in op.attrs.items() if not k.startswith("op_")} == {
        k: v for k, v in updates[0].attrs.items() if not k.startswith("op_")
    }
    assert changes == [f"4 {optimizer} ops -> fused_{optimizer} updating {', '.join(op.input('Param'))}"]


def test_an_update_with_its_own_learning_rate_is_not_fused_with_the_others():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[4])
        slow = fluid.ParamAttr(name="slow", learning_rate=0.5)  # its own scaled learning rate
        h = fluid.layers.fc(x, 3, param_attr=slow)
        h = fluid.layers.fc(h, 3)
        loss = fluid.layers.mean(fluid.layers.fc(h, 1))
        fluid.optimizer.SGD(learning_rate=0.1).minimize(loss)
    fused, changes = fuse_all_optimizer_ops(main)
    op = next(op for op in fused.global_block().ops if op.type == "fused_sgd")
    assert "slow" not in op.input("Param") and len(op.input("Param")) == 5
    assert counts(fused)["sgd"] == 1 and len(changes) == 1


def test_an_update_whose_output_is_read_before_the_last_one_stays():
    main, _, _ = build("mlp", "sgd")
    block = main.global_block()
    first = next(i for i, op in enumerate(block.ops) if op.type == "sgd")
    param = block.ops[first].input("Param")[0]
    # an op between the updates reading the updated parameter: moving the update down would change it
    block._insert_op(first + 1, "scale", {"X": [param]}, {"Out": [block.create_var(name="seen").name]}, {"scale": 1.0})
    fused, changes = fuse_all_optimizer_ops(main)
    op = next(op for op in fused.global_block().ops if op.type == "fused_sgd")
    assert param not in op.input("Param") and len(op.input("Param")) == 3
    assert counts(fused)["sgd"] == 1


def test_off_by_default_on_from_the_strategy_and_not_under_reduce():
    main, _, loss = build("mlp")
    places = [fluid.CPUPlace()] * 2
    assert "fused_momentum" not in [
        n.label() for n in build_ssa_graph(main, places, fluid.BuildStrategy(), loss.name).ops
    ]
    assert "fuse_all_optimizer_ops" not in fluid.BuildStrategy.NO_EFFECT_YET
    strategy = fluid.BuildStrategy()
    strategy.fuse_all_optimizer_ops = True
    graph = build_ssa_graph(main, places, strategy, loss.name)
    fused = [n for n in graph.ops if n.is_op and n.label().startswith("fused_momentum")]
    assert sorted(n.device for n in fused) == [0, 1]
    assert [name for name, changes in graph.program_passes] == ["fuse_all_optimizer_ops"]
    strategy = fluid.BuildStrategy()
    strategy.fuse_all_optimizer_ops = True
    strategy.reduce_strategy = fluid.BuildStrategy.ReduceStrategy.Reduce
    graph = build_ssa_graph(main, places, strategy, loss.name)
    assert not any(n.label().startswith("fused_momentum") for n in graph.ops if n.is_op)
    assert graph.program_passes == [("fuse_all_optimizer_ops", [])]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("devices", [1, 2])
def test_training_is_bitwise_unchanged(model, devices, fixed_threads):
    losses, final = train(model, devices, "momentum")
    losses_fused, final_fused = train(model, devices, "momentum", fuse_all_optimizer_ops=True)
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    assert final.keys() == final_fused.keys()
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("devices", [1, 2])
def test_sgd_and_adam_training_is_bitwise_unchanged(optimizer, devices, fixed_threads):
    losses, final = train("mlp", devices, optimizer)
    losses_fused, final_fused = train("mlp", devices, optimizer, fuse_all_optimizer_ops=True)
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in final:  # parameters and every optimizer state (moments, beta powers)
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)


def test_with_every_other_fusion_on_two_devices(fixed_threads):
    others = {"fuse_elewise_add_act_ops": True, "fuse_bn_act_ops": True, "fuse_all_reduce_ops": True}
    losses, final = train("bn_cnn", 2, "adam", **others)
    losses_fused, final_fused = train("bn_cnn", 2, "adam", fuse_all_optimizer_ops=True, **others)
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)


def test_pe_graph_passes_shows_the_fused_updates():
    proc = pe("graph", "configs/mnist_mlp.yaml", "--passes", "build_strategy.fuse_all_optimizer_ops=true")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    at = lines.index("fuse_all_optimizer_ops: 1 changes")  # after the passes before it, each "off"
    assert all(line.endswith(")") and ": off (" in line for line in lines[1:at])
    assert " ops -> fused_" in lines[at + 1]


def _sparse_net(optimizer):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        ids = fluid.layers.data(name="ids", shape=[1], dtype="int64")
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        emb = fluid.layers.embedding(ids, size=[50, 8], is_sparse=True)
        logits = fluid.layers.fc(fluid.layers.fc(emb, 8, act="relu"), 4)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        OPTIMIZERS[optimizer]().minimize(loss)
    return main, startup, loss


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_a_row_sparse_gradient_keeps_its_own_update(optimizer, fixed_threads):
    main, startup, loss = _sparse_net(optimizer)
    fused, changes = fuse_all_optimizer_ops(main)
    op = next(op for op in fused.global_block().ops if op.type == "fused_" + optimizer)
    table = next(p.name for p in main.all_parameters() if p.shape == (50, 8))
    assert table not in op.input("Param") and len(op.input("Param")) == 4
    assert counts(fused)[optimizer] == 1

    def run(fuse):
        main, startup, loss = _sparse_net(optimizer)
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        strategy = fluid.BuildStrategy()
        strategy.fuse_all_optimizer_ops = fuse
        program = fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=strategy, places=[fluid.CPUPlace()] * 2
        )
        rng = np.random.default_rng(0)
        losses = [
            exe.run(
                program,
                feed={"ids": rng.integers(0, 50, (8, 1)), "label": rng.integers(0, 4, (8, 1))},
                fetch_list=[loss],
                scope=scope,
            )[0]
            for _ in range(4)
        ]
        return losses, params(main, scope)

    (losses, final), (losses_fused, final_fused) = run(False), run(True)
    for a, b in zip(losses, losses_fused):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_fused[name], err_msg=name)


def test_adam_with_variable_betas_is_left_unfused():
    """An adam op whose betas come from Beta1Tensor / Beta2Tensor (Fluid 1.8's Variable betas) keeps its
    own op: the fused kernel takes the betas as attributes."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[8])
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        beta1 = fluid.layers.create_global_var([1], 0.8, "float32", persistable=True)
        fluid.optimizer.Adam(learning_rate=0.01, beta1=beta1).minimize(mlp(x, label))
    fused, _ = fuse_all_optimizer_ops(main)
    assert counts(fused)["adam"] == counts(main)["adam"] == 4 and counts(fused)["fused_adam"] == 0


def test_adam_with_an_epsilon_tensor_is_left_unfused():
    """An adam op given Paddle 2.x's EpsilonTensor keeps its own op: the fused kernel takes epsilon as an attribute,
    so fusing it would drop the tensor's value."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[8])
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        fluid.optimizer.Adam(learning_rate=0.01).minimize(mlp(x, label))
        epsilon = fluid.layers.create_global_var([1], 0.25, "float32", persistable=True)
    for op in main.global_block().ops:
        if op.type == "adam":
            op.desc.set_input("EpsilonTensor", [epsilon.name])
    fused, _ = fuse_all_optimizer_ops(main)
    assert counts(fused)["adam"] == counts(main)["adam"] == 4 and counts(fused)["fused_adam"] == 0
