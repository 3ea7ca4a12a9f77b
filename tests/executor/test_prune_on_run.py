"""Executor.run(use_prune=True) and optimize ops in the fetch list (what minimize returns): only the
named optimizer updates its parameters; the pruned program is made once per program, feeds and
fetches; a run that fails has created the persistables it writes, as in Fluid."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import FeedError, PeError


def _net():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x1 = fluid.data(name="x1", shape=[None, 2], dtype="float32")
        x2 = fluid.data(name="x2", shape=[None, 2], dtype="float32")
        losses = []
        for i, x in enumerate((x1, x2)):
            y = fluid.layers.fc(
                x, size=1, param_attr=fluid.ParamAttr(name=f"w{i}", initializer=fluid.initializer.Constant(1.0))
            )
            loss = fluid.layers.mean(y)
            loss.persistable = True
            losses.append(loss)
        train1 = fluid.optimizer.SGD(0.5).minimize(losses[0])
        train2 = fluid.optimizer.SGD(0.5).minimize(losses[1])
    return main, startup, losses, train1, train2


def test_optimize_ops_in_fetch_list_run_only_that_optimizer():
    main, startup, (loss1, loss2), train1, _ = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    calls = []
    original = exe._prune_program
    exe._prune_program = lambda *args: calls.append(1) or original(*args)
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(3):
            exe.run(main, feed={"x1": np.ones((2, 2), "float32")}, fetch_list=[loss1.name, train1])
    assert len(calls) == 1  # cached
    assert not np.allclose(np.array(scope.find_var("w0").get_tensor()), 1.0)
    assert np.allclose(np.array(scope.find_var("w1").get_tensor()), 1.0)  # the other optimizer did not run
    assert scope.find_var(loss2.name) is None


def test_a_failing_pruned_run_has_made_its_persistables():
    main, startup, (loss1, loss2), _, _ = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        with pytest.raises(
            FeedError, match=r"missing feed 'x1' \(float32, shape \[-1, 2\]\): pass it in feed=\{'x1': \.\.\.\}"
        ):
            exe.run(main, feed={"x2": np.ones((2, 2), "float32")}, fetch_list=[loss1.name], use_prune=True)
    assert scope.find_var(loss1.name) is not None


def test_fetch_list_items_are_checked():
    main, startup, (loss1, _), _, _ = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        got = exe.run(
            main, feed={"x1": np.ones((2, 2), "float32"), "x2": np.ones((2, 2), "float32")}, fetch_list=[(loss1, "w0")]
        )  # a tuple of fetches is flattened
    assert len(got) == 2 and got[1].shape == (2, 1)
    forward_op = main.global_block().ops[0]
    with pytest.raises(TypeError, match="not an optimize_op"):
        exe.run(main, feed={"x1": np.ones((2, 2), "float32")}, fetch_list=[loss1, forward_op])
    with pytest.raises(TypeError, match="str, variable or optimize_op"):
        exe.run(main, feed={"x1": np.ones((2, 2), "float32")}, fetch_list=[3])


def test_a_compiled_program_is_pruned_from_the_program_it_was_made_of(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")
    main, startup, (loss1, loss2), train1, train2 = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    feed = {"x1": np.ones((2, 2), "float32"), "x2": np.ones((2, 2), "float32")}
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        single = fluid.CompiledProgram(main)
        for fetch in ([loss1, train1], [loss2, train2], [loss1, train1]):
            assert np.isfinite(exe.run(single, feed=feed, fetch_list=fetch)[0]).all()
        parallel = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss1.name)
        exe.run(parallel, feed=feed, fetch_list=[loss1, train1])
        exe.run(parallel, feed=feed, fetch_list=[loss1, train1])  # the same pruning: cached
        with pytest.raises(PeError, match="prunes a CompiledProgram once"):
            exe.run(parallel, feed=feed, fetch_list=[loss2, train2])
