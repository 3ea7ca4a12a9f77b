"""Fluid idioms around fetches and feeds that scripts written for Fluid 1.x rely on: ``float(loss)``
of a fetched shape-[1] value under numpy >= 2.3, a fed persistable variable (a learning rate)
going whole to every device (and split when it has a row a device), and ExecutionStrategy._dry_run."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import FeedError
from parallel_nets import batch, mlp, params


def _program(lr_var=False):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 8])  # (its feeds are checked; layers.data's are not)
        label = fluid.data(name="label", shape=[None, 1], dtype="int64")
        loss = mlp(x, label)
        lr = fluid.layers.create_global_var([1], 0.1, "float32", persistable=True, name="lr") if lr_var else 0.1
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    return main, startup, loss


def _started(lr_var=False):
    main, startup, loss = _program(lr_var)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    return main, loss, scope


def test_float_of_a_fetched_loss_works_as_in_fluid():
    main, loss, scope = _started()
    exe = fluid.Executor(fluid.CPUPlace())
    (value,) = exe.run(main, feed=batch(), fetch_list=[loss], scope=scope)
    assert value.shape == (1,)
    assert float(value) == pytest.approx(value[0]) == pytest.approx(float(np.mean(value)))
    assert isinstance(value, np.ndarray) and repr(value).startswith("array(")
    assert int(np.array([3.0], "float32").view(type(value))) == 3


def test_float_of_a_fetch_with_several_values_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")
    main, loss, scope = _started()
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope)
    (value,) = pe.run([loss.name], feed=batch())
    assert value.shape == (2,)  # one loss per device, concatenated
    assert float(np.mean(value)) == pytest.approx(value.mean())
    with pytest.raises(TypeError, match=r"shape \[2\]"):
        float(value)


def test_a_fed_persistable_goes_whole_to_every_device(monkeypatch):
    """A [1] learning rate fed to a 2-device run is not split (it has fewer rows than devices) and
    trains as the same feed does on one device."""
    feed = dict(batch(n=12), lr=np.array([0.05], "float32"))
    main, loss, scope = _started(lr_var=True)
    exe = fluid.Executor(fluid.CPUPlace())
    for _ in range(3):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    one = params(main, scope)

    monkeypatch.setenv("CPU_NUM", "2")
    main2, loss2, scope2 = _started(lr_var=True)
    pe = fluid.ParallelExecutor(False, loss_name=loss2.name, main_program=main2, scope=scope2)
    for _ in range(3):
        pe.run([loss2.name], feed=feed)
    two = params(main2, scope2)
    for name in one:
        np.testing.assert_allclose(two[name], one[name], rtol=1e-5, atol=1e-6)
    assert not np.allclose(one[name], params(*_started(lr_var=True)[::2])[name])  # it trained


def test_a_fed_persistable_with_a_row_a_device_is_split_and_fewer_rows_are_a_runtime_error(monkeypatch):
    """Fluid's rule (ParallelExecutor's feed split): a fed persistable variable with one row is copied to
    every device, one with at least a row a device is split like a batch, anything between is a
    RuntimeError; so is a batch with fewer samples than devices, reported before another feed's shape."""
    monkeypatch.setenv("CPU_NUM", "2")
    trained = []
    for lr in ([0.05], [0.05, 0.05]):
        main, loss, scope = _started(lr_var=True)
        pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope)
        for _ in range(3):
            pe.run([loss.name], feed=dict(batch(n=12), lr=np.array(lr, "float32")))
        trained.append(params(main, scope))
    for name in trained[0]:
        np.testing.assert_array_equal(trained[1][name], trained[0][name])
    monkeypatch.setenv("CPU_NUM", "3")
    main, loss, scope = _started(lr_var=True)
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope)
    with pytest.raises(RuntimeError, match="'lr' is a persistable variable with 2 samples but the program runs on 3"):
        pe.run([loss.name], feed=dict(batch(n=12), lr=np.array([0.05, 0.05], "float32")))
    feed = batch(n=12)
    feed = {"x": feed["x"][0], "label": feed["label"][:1], "lr": np.array([0.05], "float32")}
    with pytest.raises(RuntimeError, match="'label' has 1 sample"):
        pe.run([loss.name], feed=feed)
    with pytest.raises(FeedError, match="'x': expected shape"):  # once the split works, the shape check
        pe.run([loss.name], feed=dict(feed, x=batch(n=12)["x"][:, :-1], label=batch(n=12)["label"]))


def test_dry_run_builds_and_schedules_but_runs_nothing(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")
    main, loss, scope = _started()
    before = params(main, scope)
    strategy = fluid.ExecutionStrategy()
    strategy._dry_run = True
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, exec_strategy=strategy)
    exe = fluid.Executor(fluid.CPUPlace())
    for _ in range(3):
        assert exe.run(compiled, scope=scope) == []  # no feed needed, nothing fetched
    after = params(main, scope)
    assert all(np.array_equal(before[n], after[n]) for n in before)


def test_a_fed_persistable_stays_in_the_scope_and_later_runs_read_it():
    """As Fluid's feed op (its gradient checker feeds x once, then perturbs it in the scope)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [2, 2], "float64")
        x.persistable = True
        y = fluid.layers.scale(x, 3.0)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    fed = np.ones((2, 2))
    exe.run(main, feed={"x": fed}, scope=scope)
    held = scope.find_var("x").get_tensor()
    held._set_double_element(1, 5.0)
    (out,) = exe.run(main, scope=scope, fetch_list=[y])
    np.testing.assert_array_equal(out, [[3.0, 15.0], [3.0, 3.0]])
    np.testing.assert_array_equal(fed, np.ones((2, 2)))  # the fed array itself is not the scope's


def test_a_fetched_tensor_with_no_element_is_fluids_empty_fetch():
    """Fluid 1.8's fetch op copies no tensor without elements: the fetched LoDTensor has shape [0] (its LoD
    kept) and return_numpy gives None (as_numpy of that uninitialised tensor); a Paddle 2.x program
    fetches the array with its shape (test_matrix_nms_op.py's nothing-kept case compares Out to [0])."""
    from pe_cli.framework import program_release

    for paddle2, want in ((False, (None, (0,))), (True, ((0, 6), (0, 6)))):
        old = program_release.follow_paddle2(paddle2)
        try:
            with fluid.program_guard(fluid.Program(), fluid.Program()):
                x = fluid.data("x", [-1, 6], "float32")
                y = fluid.layers.scale(x, 2.0)
                exe, feed = fluid.Executor(fluid.CPUPlace()), {"x": np.zeros((0, 6), "float32")}
                (as_numpy,) = exe.run(feed=feed, fetch_list=[y])
                (tensor,) = exe.run(feed=feed, fetch_list=[y], return_numpy=False)
        finally:
            program_release.follow_paddle2(old)
        assert (None if as_numpy is None else as_numpy.shape) == want[0]
        assert np.array(tensor).shape == want[1]
