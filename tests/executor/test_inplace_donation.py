"""In-place updates decided by explicit state (issue 95 item 3; pe_cli/executor/donation.py), not by
counting references: an array a user holds (a fetched value, a fed array, one taken from the scope
with ``numpy.asarray`` or ``Scope.get_array``) or that another name shares (a view, an alias a program
makes) is never changed by a later step; where nothing else holds a parameter, its update writes the
scope's array in place, op by op and in a planned step."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

PARAMS = ("w1", "b1", "w2", "b2")


def build(extra=None):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [12])
        label = fluid.layers.data("label", [1], dtype="int64")
        hidden = fluid.layers.fc(x, 16, act="relu", param_attr="w1", bias_attr="b1")
        logits = fluid.layers.fc(hidden, 4, param_attr="w2", bias_attr="b2")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        made = extra(main) if extra is not None else None
        fluid.optimizer.Momentum(0.1, momentum=0.9).minimize(loss)
    return main, startup, loss, made


def feeds(n):
    rng = np.random.default_rng(1)
    return [
        {"x": rng.normal(size=(8, 12)).astype("float32"), "label": rng.integers(0, 4, size=(8, 1)).astype("int64")}
        for _ in range(n)
    ]


def tensor(scope, name):
    return scope.find_var(name).get_tensor()


@pytest.fixture(params=["op by op", "planned"])
def path(request, monkeypatch):
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if request.param == "planned" else "0")
    return request.param


def test_an_update_writes_the_parameter_in_place_where_nothing_else_holds_it(path):
    main, startup, loss, _ = build()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        exe.run(main, feed=feeds(1)[0], fetch_list=[loss])
        ids = {n: id(tensor(scope, n)._array) for n in PARAMS}  # (an id holds nothing)
        before = {n: np.array(tensor(scope, n)) for n in PARAMS}  # (numpy.array: a copy, lends nothing)
        for feed in feeds(5)[1:]:  # (a planned step from the third on)
            exe.run(main, feed=feed, fetch_list=[loss])
        for n in PARAMS:
            assert id(tensor(scope, n)._array) == ids[n], n  # the same array, written in place
            assert not np.array_equal(np.array(tensor(scope, n)), before[n]), n  # and updated


def test_numpy_array_of_a_tensor_is_a_copy_and_asarray_lends_the_array(path):
    main, startup, loss, _ = build()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        exe.run(main, feed=feeds(1)[0])
        copied = np.array(tensor(scope, "w1"))
        assert not np.shares_memory(copied, tensor(scope, "w1")._array)
        held, by_name = np.asarray(tensor(scope, "w1")), scope.get_array("b1")
        kept, kept_b = held.copy(), by_name.copy()
        for feed in feeds(4)[1:]:
            exe.run(main, feed=feed)
        np.testing.assert_array_equal(held, kept)  # never written: the step made a new array
        np.testing.assert_array_equal(by_name, kept_b)
        assert tensor(scope, "w1")._array is not held and not np.array_equal(tensor(scope, "w1")._array, kept)
        # the scope's array is pe's own again: in place from the next step
        now = id(tensor(scope, "w1")._array)
        exe.run(main, feed=feeds(5)[4])
        assert id(tensor(scope, "w1")._array) == now


def test_a_fed_parameter_array_is_never_written(path):
    main, startup, loss, _ = build()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        mine = np.array(tensor(scope, "w1"))
        kept = mine.copy()
        for feed in feeds(4):
            exe.run(main, feed=dict(feed, w1=mine))
            np.testing.assert_array_equal(mine, kept)  # the caller's array, as it gave it
        assert not np.shares_memory(tensor(scope, "w1")._array, mine)


def test_a_fetched_parameter_and_a_fetched_view_of_it_keep_their_values(path):
    """A reshape of w1 fetched in the same run is a view of w1's array (its Meta's ``views``): the update
    after it must not write w1 in place, or the fetched value would be the updated one."""

    def flat(main):
        return fluid.layers.reshape(main.global_block().var("w1"), [-1])

    main, startup, loss, flat_w1 = build(flat)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        fetched = []
        for feed in feeds(4):
            before = np.array(tensor(scope, "w1"))
            view, param = exe.run(main, feed=feed, fetch_list=[flat_w1, "w1"])
            np.testing.assert_array_equal(view, before.reshape(-1))  # the value before this step's update
            assert not np.array_equal(param, before)  # w1 fetched after the run: updated
            fetched.append((view, view.copy(), param, param.copy()))
        for view, view_kept, param, param_kept in fetched:  # later steps changed none of them
            np.testing.assert_array_equal(view, view_kept)
            np.testing.assert_array_equal(param, param_kept)


def test_a_persistable_alias_of_a_parameter_keeps_the_value_it_was_given(path):
    """``assign`` of w1 to a persistable variable: the copy the scope keeps is the value w1 had when it
    ran, whatever later updates of w1 write."""

    def alias(main):
        kept = main.global_block().create_var(name="w1_at_forward", shape=[12, 16], dtype="float32", persistable=True)
        fluid.layers.assign(main.global_block().var("w1"), output=kept)
        return kept

    main, startup, loss, kept_var = build(alias)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for feed in feeds(5):
            before = np.array(tensor(scope, "w1"))
            exe.run(main, feed=feed)
            np.testing.assert_array_equal(np.array(tensor(scope, "w1_at_forward")), before)


def test_the_numbers_are_those_of_updates_into_new_arrays(path):
    """Losses and parameters with every update in place equal those of a run where a user holds every
    parameter (each update then makes a new array), to the bit."""

    def train(hold):
        main, startup, loss, _ = build()
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        losses = []
        with fluid.scope_guard(scope):
            exe.run(startup)
            for feed in feeds(5):
                held = [np.asarray(tensor(scope, n)) for n in PARAMS] if hold else []
                losses.append(float(exe.run(main, feed=feed, fetch_list=[loss])[0]))
                del held
            return losses, {n: np.array(tensor(scope, n)) for n in PARAMS}

    losses, params = train(False)
    held_losses, held_params = train(True)
    assert losses == held_losses
    for n in PARAMS:
        np.testing.assert_array_equal(params[n], held_params[n], err_msg=n)


def test_two_devices_update_in_place_and_never_write_an_array_the_user_holds():
    """Two CPU devices (one memory): each parameter is updated on its owner, in place where donated; an
    array the user took from the scope (every parameter's, whichever device owns it) stays as it was, and
    the numbers are those of the run where the user holds nothing."""

    def train(hold):
        main, startup, loss, _ = build()
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[fluid.CPUPlace()] * 2)
        losses, same, kept = [], [], []
        for feed in feeds(5):
            ids = {n: id(tensor(scope, n)._array) for n in PARAMS}
            if hold:
                kept += [(a, a.copy()) for a in (np.asarray(tensor(scope, n)) for n in PARAMS)]
            losses.append(exe.run(compiled, feed=feed, fetch_list=[loss.name], scope=scope)[0])
            same.append(all(id(tensor(scope, n)._array) == ids[n] for n in PARAMS))
        return losses, {n: np.array(tensor(scope, n)) for n in PARAMS}, same, kept

    losses, params, same, _ = train(False)
    assert same[1:] == [True] * 4  # in place once each device's copy is its own
    held_losses, held_params, held_same, kept = train(True)
    assert held_same == [False] * 5
    for array, copy in kept:
        np.testing.assert_array_equal(array, copy)
    for a, b in zip(losses, held_losses):
        np.testing.assert_array_equal(a, b)
    for n in PARAMS:
        np.testing.assert_array_equal(params[n], held_params[n], err_msg=n)
