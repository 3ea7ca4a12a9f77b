"""The memory_optimize pass (pe_cli/compiler/passes): what it releases on a small graph, that it
never releases fed, fetched, persistable or skipped values, and that training with it gives
bitwise the losses and parameters of training without it (MLP, LeNet-5, a batch-norm CNN; the
sequential Executor and 2 devices)."""

import re

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import build_ssa_graph, passes
from pe_cli.compiler.ssa_nodes import RELEASE

from parallel_nets import batch, lenet5, mlp, params
from tests.cli.test_helpers import pe


def bn_cnn(image, label):
    conv = fluid.layers.conv2d(image, num_filters=4, filter_size=3, padding=1)
    hidden = fluid.layers.batch_norm(conv, act="relu")
    pool = fluid.layers.pool2d(hidden, pool_size=2, pool_stride=2)
    logits = fluid.layers.fc(pool, 10)
    return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))


def build(model, train=True):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        shape = [8] if model == "mlp" else [1, 28, 28]
        x = fluid.layers.data(name="x", shape=shape)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        loss = {"mlp": mlp, "lenet": lenet5, "bn_cnn": bn_cnn}[model](x, label)
        if train:
            fluid.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)
    return main, startup, loss


def train(model, devices, how, **options):
    """Losses and final parameters of 4 steps; ``how``: None, 'fluid' (fluid.memory_optimize) or
    'strategy' (BuildStrategy.memory_optimize); ``options``: more BuildStrategy options."""
    main, startup, loss = build(model)
    if how == "fluid":
        fluid.memory_optimize(main)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    program = main
    if devices:
        strategy = fluid.BuildStrategy()
        strategy.memory_optimize = how == "strategy"
        for key, value in options.items():
            setattr(strategy, key, value)
        program = fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=strategy, places=[fluid.CPUPlace()] * devices
        )
    data = "mlp" if model == "mlp" else "lenet"
    losses = [exe.run(program, feed=batch(data, 8, seed=i), fetch_list=[loss], scope=scope)[0] for i in range(4)]
    return losses, params(main, scope)


MODELS = ["mlp", "lenet", "bn_cnn"]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("devices,how", [(0, "fluid"), (1, "strategy"), (2, "strategy"), (2, "fluid")])
def test_training_is_bitwise_unchanged(model, devices, how):
    losses, final = train(model, devices, None)
    losses_opt, final_opt = train(model, devices, how)
    for a, b in zip(losses, losses_opt):
        np.testing.assert_array_equal(a, b)
    assert final.keys() == final_opt.keys()
    for name in final:
        np.testing.assert_array_equal(final[name], final_opt[name], err_msg=name)


def test_a_single_device_compiled_program_takes_memory_optimize_from_its_strategy():
    def run(memory_optimize):
        main, startup, loss = build("lenet")
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        strategy = fluid.BuildStrategy()
        strategy.memory_optimize = memory_optimize
        compiled = fluid.CompiledProgram(main, build_strategy=strategy)
        losses = [
            exe.run(compiled, feed=batch("lenet", 8, seed=i), fetch_list=[loss], scope=scope)[0] for i in range(3)
        ]
        plan = exe._plans[id(main)]
        return losses, params(main, scope), plan._frees

    losses, final, no_frees = run(False)
    losses_opt, final_opt, frees = run(True)
    assert not no_frees and len(frees) == 1  # computed once, for the one fetch list
    for a, b in zip(losses, losses_opt):
        np.testing.assert_array_equal(a, b)
    for name in final:
        np.testing.assert_array_equal(final[name], final_opt[name], err_msg=name)


def test_program_frees_on_a_small_forward_graph():
    main, _, loss = build("mlp", train=False)
    block = main.global_block()
    frees = passes.program_frees(block, [loss])
    freed = {name: i for i, names in enumerate(frees) for name in names}
    # every temporary is freed right after the last op that reads it, and only those
    for name, i in freed.items():
        assert name in block.ops[i].input_arg_names + block.ops[i].output_arg_names
        assert not any(name in op.input_arg_names for op in block.ops[i + 1 :])
    persistable = {n for n, v in block.vars.items() if v.persistable}
    assert not (set(freed) & (persistable | {"x", "label", loss.name}))
    temporaries = {n for op in block.ops for n in op.output_arg_names} - persistable - {loss.name}
    assert set(freed) == temporaries
    skip = sorted(temporaries)[0]
    assert skip not in {n for names in passes.program_frees(block, [loss], {skip}) for n in names}


def test_the_graph_pass_adds_release_nodes_after_every_reader():
    main, _, loss = build("mlp")
    strategy = fluid.BuildStrategy()
    strategy.memory_optimize = True
    graph = build_ssa_graph(main, [fluid.CPUPlace()] * 2, strategy, loss.name).with_fetches([loss.name])
    before = len(graph.ops)
    optimized, report = passes.apply(graph, [loss.name], strategy)
    assert len(graph.ops) == before  # the graph given is unchanged
    releases = [n for n in optimized.ops if n.kind == RELEASE]
    assert report[0][0] == "memory_optimize" and len(report[0][1]) == len(releases) > 0
    persistable = {n for n, v in main.global_block().vars.items() if v.persistable}
    index = {n.id: i for i, n in enumerate(optimized.ops)}
    for node in releases:
        assert node.var not in persistable | {"x", "label", loss.name}
        last = optimized.vars[(node.device, node.var)][-1]
        waited = {dep.producer.id for dep in node.inputs}
        assert waited == {c.id for c in last.consumers} or waited == {last.producer.id}
        assert all(index[i] < index[node.id] for i in waited)
    assert {n.device for n in releases} == {0, 1}


def optimized_mlp(devices):
    """The MLP's training program with memory_optimize on ``devices`` CPU devices, initialized."""
    main, startup, loss = build("mlp")
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    strategy.memory_optimize = True
    compiled = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=[fluid.CPUPlace()] * devices
    )
    return main, loss, exe, scope, compiled


def test_released_temporaries_are_gone_from_the_device_scopes():
    main, loss, exe, scope, compiled = optimized_mlp(2)
    exe.run(compiled, feed=batch("mlp", 8), fetch_list=[loss], scope=scope)
    local = compiled._engine.exec_scopes[1]
    hidden = [op for op in main.global_block().ops if op.type == "relu"][0].output_arg_names[0]
    assert local.find_var(hidden) is None
    assert local.find_var(loss.name) is not None


def test_fluid_memory_optimize_logs_reuse_and_checks_its_arguments(capsys):
    main, _, _ = build("mlp")
    fluid.memory_optimize(main, print_log=True, level=1)
    out = capsys.readouterr().out
    assert "memory_optimize: op " in out and "takes the buffer of" in out
    with pytest.raises(ValueError, match="level must be 0 or 1"):
        fluid.memory_optimize(main, level=2)
    with pytest.raises(TypeError, match="must be a Program"):
        fluid.release_memory("main")
    fluid.release_memory(main, skip_opt_set=["fc_0.tmp_0"])
    assert main._memory_optimize["skip"] == {"fc_0.tmp_0"}


def test_pe_graph_passes_prints_each_change():
    proc = pe("graph", "configs/mnist_mlp.yaml", "--passes", "--devices", "2", "build_strategy.memory_optimize=true")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("graph passes of mlp on 2 devices")
    assert "enable_inplace: off (build_strategy.enable_inplace)" in lines
    assert any(re.fullmatch(r"memory_optimize: \d+ changes", line) for line in lines)
    assert any(re.fullmatch(r"  release fc1\.tmp_0 on device 1 after \w+", line) for line in lines)
    off = pe("graph", "models/mlp.yaml", "--passes")
    assert off.returncode == 0 and "memory_optimize: off (build_strategy.memory_optimize)" in off.stdout


@pytest.mark.parametrize("devices", [1, 2])
def test_release_nodes_run_before_other_ready_nodes(monkeypatch, devices):
    """The scheduler runs a release node as soon as it is ready, also after its calibration runs
    (where it orders nodes by their measured longest path, on which a release node is last)."""
    monkeypatch.setenv("PE_PLANNED_STEP", "0")  # (the op-by-op schedule's; planned, its third run is a plan)
    main, loss, exe, scope, compiled = optimized_mlp(devices)
    for i in range(7):
        exe.run(compiled, feed=batch("mlp", 8, seed=i), fetch_list=[loss], scope=scope)
    (sched,) = compiled._engine._schedules.values()
    release = [i for i, node in enumerate(sched.nodes) if node.kind == RELEASE]
    assert release and all(sched.eager[i] for i in release) and sum(sched.eager) == len(release)
    assert not sched.calibrating() or devices == 1  # one device runs its stack, never calibrating
    worst_release = max(sched.priority[i] for i in release)
    assert all(worst_release < sched.priority[i] for i in range(len(sched.nodes)) if i not in release)
    for s in sched.succ:  # a device's task list is a stack: the release nodes are pushed last
        flags = [sched.eager[i] for i in s]
        assert flags == sorted(flags)
