"""Dense sgd and momentum updates write the parameter and its velocity in place (issue 17: the
momentum update in one pass, no new arrays each step) where the sequential executor allows it: only
the run's values and the scope hold them. What a user holds is never written, the numbers are those
of updates into new arrays, and with NaN checks on, or with another executor on the same scope,
every update makes new arrays."""

import weakref

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.executor import nan_check

OPTIMIZERS = {
    "sgd": lambda: fluid.optimizer.SGD(0.1),
    "momentum": lambda: fluid.optimizer.Momentum(0.05, momentum=0.9),
    "nesterov": lambda: fluid.optimizer.Momentum(0.05, momentum=0.9, use_nesterov=True),
}


def build(make_opt):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [12])
        label = fluid.layers.data("label", [1], dtype="int64")
        hidden = fluid.layers.fc(x, 16, act="relu", param_attr="w1", bias_attr="b1")
        logits = fluid.layers.fc(hidden, 4, param_attr="w2", bias_attr="b2")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        make_opt().minimize(loss)
    return main, startup, loss


def feeds(n=4):
    rng = np.random.default_rng(0)
    return [
        {"x": rng.normal(size=(8, 12)).astype("float32"), "label": rng.integers(0, 4, size=(8, 1)).astype("int64")}
        for _ in range(n)
    ]


PARAMS = ("w1", "b1", "w2", "b2")


def train(make_opt, hold=False):
    """Final parameters and losses; with ``hold``, the test keeps a reference to every parameter's
    array across each run (as a user's ``numpy.asarray(tensor)`` does) and checks it is unchanged."""
    main, startup, loss = build(make_opt)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    losses, kept_arrays = [], 0
    with fluid.scope_guard(scope):
        exe.run(startup)
        for feed in feeds():
            held = {n: np.asarray(scope.find_var(n).get_tensor()) for n in PARAMS} if hold else {}
            kept = {n: a.copy() for n, a in held.items()}
            losses.append(float(exe.run(main, feed=feed, fetch_list=[loss])[0]))
            for n in held:
                np.testing.assert_array_equal(held[n], kept[n], err_msg=n)  # not written: a new array
                kept_arrays += scope.find_var(n).get_tensor()._array is held[n]
        params = {n: np.array(scope.find_var(n).get_tensor()) for n in PARAMS}
    return params, losses, kept_arrays


@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_an_update_writes_in_place_the_numbers_of_new_arrays(opt):
    main, startup, loss = build(OPTIMIZERS[opt])
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        exe.run(main, feed=feeds(1)[0])
        tensors = {n: scope.find_var(n).get_tensor() for n in PARAMS}
        before = {n: weakref.ref(t._array) for n, t in tensors.items()}  # (a weak reference holds nothing)
        exe.run(main, feed=feeds(2)[1])
        assert all(t._array is before[n]() for n, t in tensors.items())  # written in place
    params, losses, _ = train(OPTIMIZERS[opt])
    held_params, held_losses, kept = train(OPTIMIZERS[opt], hold=True)
    assert kept == 0  # never the array the user holds
    assert losses == held_losses
    for n in PARAMS:
        np.testing.assert_array_equal(params[n], held_params[n], err_msg=n)


def test_a_fetched_parameter_is_the_updated_value_and_stays_so():
    main, startup, loss = build(OPTIMIZERS["momentum"])
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        (first,) = exe.run(main, feed=feeds(1)[0], fetch_list=["w1"])
        kept = first.copy()
        np.testing.assert_array_equal(first, np.array(scope.find_var("w1").get_tensor()))
        exe.run(main, feed=feeds(2)[1])
        np.testing.assert_array_equal(first, kept)  # a fetched value is a copy


def test_with_nan_checks_on_an_update_makes_new_arrays():
    """A NaN check that fails stops the run before its values go back to the scope, so the scope
    keeps the parameters the run found: no update may write them in place."""
    main, startup, loss = build(OPTIMIZERS["momentum"])
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope), nan_check.enabled():
        exe.run(startup)
        exe.run(main, feed=feeds(1)[0])
        tensor = scope.find_var("w1").get_tensor()
        before = weakref.ref(tensor._array)
        exe.run(main, feed=feeds(2)[1])
        assert before() is None or tensor._array is not before()


def test_an_executor_sharing_its_scope_with_other_threads_makes_new_arrays():
    """Hogwild's thread workers (pe_cli/data/hogwild.py) run one Executor each on one scope and tell
    each executor how many run at once: another worker may have gathered a parameter after this
    run's reference counts were read, so with more than one no dense update writes in place."""
    main, startup, loss = build(OPTIMIZERS["momentum"])
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        exe._concurrent = 2  # what hogwild.Job.work sets for 2 workers
        exe.run(main, feed=feeds(1)[0])
        tensors = {n: scope.find_var(n).get_tensor() for n in PARAMS}
        before = {n: weakref.ref(t._array) for n, t in tensors.items()}
        exe.run(main, feed=feeds(2)[1])
        assert not any(t._array is before[n]() for n, t in tensors.items())
        exe._concurrent = 1  # alone again: in place
        before = {n: weakref.ref(t._array) for n, t in tensors.items()}
        exe.run(main, feed=feeds(3)[2])
        assert all(t._array is before[n]() for n, t in tensors.items())


@pytest.mark.parametrize("opt", ["sgd", "momentum"])
def test_a_fused_update_writes_every_parameter_in_place_with_the_separate_updates_numbers(opt):
    """fuse_all_optimizer_ops's fused_sgd / fused_momentum (one op over every parameter, run through
    a single-device CompiledProgram) updates in place too: the executor counts the Param list's
    references. Its numbers are the separate updates'."""
    main, startup, loss = build(OPTIMIZERS[opt])
    strategy = fluid.BuildStrategy()
    strategy.fuse_all_optimizer_ops = True
    compiled = fluid.CompiledProgram(main, build_strategy=strategy)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        losses = [float(exe.run(compiled, feed=feeds(1)[0], fetch_list=[loss])[0])]
        assert any(op.type == f"fused_{opt}" for op in compiled._passed[2].global_block().ops)
        tensors = {n: scope.find_var(n).get_tensor() for n in PARAMS}
        before = {n: weakref.ref(t._array) for n, t in tensors.items()}
        for feed in feeds()[1:]:
            losses.append(float(exe.run(compiled, feed=feed, fetch_list=[loss])[0]))
        assert all(t._array is before[n]() for n, t in tensors.items())  # written in place
        params = {n: np.array(t) for n, t in tensors.items()}
    separate_params, separate_losses, _ = train(OPTIMIZERS[opt])
    assert losses == separate_losses
    for n in PARAMS:
        np.testing.assert_array_equal(params[n], separate_params[n], err_msg=n)
