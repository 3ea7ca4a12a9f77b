"""The sequential Executor: feeding, fetching, scopes, and clear errors for bad input."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import FeedError, OpError, PeError


@pytest.fixture
def mlp():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [None, 4])  # fluid.data: its feeds are checked (layers.data's are not)
        y = fluid.data("y", [None, 1], dtype="int64")
        h = fluid.layers.fc(x, 8, act="relu")
        logits = fluid.layers.fc(h, 3)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        test = main.clone(for_test=True)
        fluid.optimizer.SGD(0.5).minimize(loss)
    rng = np.random.default_rng(0)
    feed = {"x": rng.normal(size=(6, 4)).astype("float32"), "y": rng.integers(0, 3, (6, 1))}
    return main, startup, test, loss, logits, feed


def test_training_lowers_the_loss_and_fetch_by_name_or_variable(mlp):
    main, startup, test, loss, logits, feed = mlp
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    (first,) = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    for _ in range(20):
        last, out = exe.run(main, feed=feed, fetch_list=[loss.name, logits.name], scope=scope)
    assert last[0] < first[0]
    assert out.shape == (6, 3)
    # the test program sees the trained parameters and does not train them
    (t1,) = exe.run(test, feed=feed, fetch_list=[loss.name], scope=scope)
    (t2,) = exe.run(test, feed=feed, fetch_list=[loss.name], scope=scope)
    assert t1 == t2


def test_fetched_values_are_what_the_graph_computes(mlp):
    main, startup, test, loss, logits, feed = mlp
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    (got,) = exe.run(test, feed=feed, fetch_list=[logits], scope=scope)
    w0, b0, w1, b1 = (
        np.array(scope.find_var(n).get_tensor()) for n in ("fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0")
    )
    want = np.maximum(feed["x"] @ w0 + b0, 0) @ w1 + b1
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_scope_tensor_set_and_global_scope_guard(mlp):
    main, startup, test, loss, logits, feed = mlp
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        assert fluid.global_scope() is scope
        exe.run(startup)
        tensor = scope.find_var("fc_1.b_0").get_tensor()
        tensor.set(np.full([3], 7.0, dtype="float32"), fluid.CPUPlace())
        (got,) = exe.run(test, feed=feed, fetch_list=["fc_1.b_0"])
    np.testing.assert_array_equal(got, [7.0, 7.0, 7.0])
    assert fluid.global_scope() is not scope


def test_same_seed_same_initial_parameters(mlp):
    main, startup, *_ = mlp
    exe = fluid.Executor(fluid.CPUPlace())
    a, b = fluid.Scope(), fluid.Scope()
    exe.run(startup, scope=a)
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=b)
    np.testing.assert_array_equal(
        np.array(a.find_var("fc_0.w_0").get_tensor()), np.array(b.find_var("fc_0.w_0").get_tensor())
    )


def test_temporaries_do_not_leak_into_the_scope(mlp):
    main, startup, test, loss, logits, feed = mlp
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    assert scope.find_var(logits.name) is None
    assert scope.find_var("fc_0.w_0") is not None


def _started(mlp):
    main, startup, test, loss, logits, feed = mlp
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    return exe, scope


def test_missing_feed_names_the_variable_and_its_shape(mlp):
    exe, scope = _started(mlp)
    main, _, _, loss, _, feed = mlp
    with pytest.raises(FeedError, match=r"missing feed 'y' \(int64, shape \[-1, 1\]\)"):
        exe.run(main, feed={"x": feed["x"]}, fetch_list=[loss], scope=scope)


def test_feed_of_wrong_shape(mlp):
    """fluid.data checks a feed's shape; layers.data, as Fluid 1.8's, checks none (a Fluid program
    may declare [-1, 1] and feed [6], or [batch * max_length, 1] and feed shorter batches): the op
    reading a feed of the wrong shape says so. (A value with fewer dims than declared fits on those it
    has, in both Fluid 1.8.5 and Paddle 2.6.2: tests/executor/test_feed_shapes.py.)"""
    exe, scope = _started(mlp)
    main, _, _, loss, _, feed = mlp
    for wrong, shown in ((np.zeros((6, 4, 1), "float32"), r"\[6, 4, 1\]"), (np.zeros((6, 5), "float32"), r"\[6, 5\]")):
        with pytest.raises(FeedError, match=r"feed 'x': expected shape \[-1, 4\] .* got " + shown):
            exe.run(main, feed={"x": wrong, "y": feed["y"]}, fetch_list=[loss], scope=scope)
    unchecked, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(unchecked, startup):
        out = fluid.layers.fc(fluid.layers.data("x", [4]), 2)
    exe.run(startup, scope=scope)
    with pytest.raises(PeError, match=r"op 'mul'"):
        exe.run(unchecked, feed={"x": np.zeros((6, 5), "float32")}, fetch_list=[out], scope=scope)


def test_feed_of_wrong_dtype(mlp):
    exe, scope = _started(mlp)
    main, _, _, loss, _, feed = mlp
    with pytest.raises(FeedError, match="feed 'x': expected dtype float32, got float64"):
        exe.run(main, feed={"x": feed["x"].astype("float64"), "y": feed["y"]}, fetch_list=[loss], scope=scope)


def test_feed_of_unknown_name_is_dropped_with_fluids_warning_and_a_compiled_run_suggests_closest(mlp):
    """Fluid 1.8.5's Executor warns and drops a fed name the program lacks; its parallel executor
    (a CompiledProgram) raises a ValueError."""
    exe, scope = _started(mlp)
    main, _, _, loss, _, feed = mlp
    with pytest.warns(UserWarning, match="The variable xx is not found in program. It is not declared or is pruned."):
        exe.run(main, feed={"xx": feed["x"], **feed}, fetch_list=[loss], scope=scope)
    with pytest.raises(FeedError, match="feed 'xx' is not a variable of the program; did you mean 'x'"):
        exe.run(fluid.CompiledProgram(main), feed={"xx": feed["x"], **feed}, fetch_list=[loss], scope=scope)


def test_unknown_fetch_name(mlp):
    exe, scope = _started(mlp)
    main, _, _, loss, _, feed = mlp
    with pytest.raises(PeError, match="cannot fetch 'losss'"):
        exe.run(main, feed=feed, fetch_list=["losss"], scope=scope)


def test_running_before_startup_says_what_to_do(mlp):
    main, _, _, loss, _, feed = mlp
    with pytest.raises(PeError, match="run the startup program first"):
        fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[loss], scope=fluid.Scope())


def test_label_out_of_range_fails_cleanly_naming_the_op(mlp):
    exe, scope = _started(mlp)
    main, _, _, loss, _, feed = mlp
    bad = dict(feed, y=np.full((6, 1), 99, dtype="int64"))
    with pytest.raises(OpError, match="op 'softmax_with_cross_entropy'.*built at test_executor.py"):
        exe.run(main, feed=bad, fetch_list=[loss], scope=scope)


def test_rerunning_a_seeded_startup_program_initializes_identically(mlp):
    main, startup, *_ = mlp
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    first = np.array(scope.find_var("fc_0.w_0").get_tensor())
    exe.run(startup, scope=scope)
    np.testing.assert_array_equal(first, np.array(scope.find_var("fc_0.w_0").get_tensor()))


def test_a_declared_variable_nothing_computes_is_named_as_such(mlp):
    exe, scope = _started(mlp)
    main, _, _, loss, _, feed = mlp
    main.global_block().create_var(name="never_written", shape=[1], dtype="float32")
    with pytest.raises(PeError, match="cannot fetch 'never_written': no op of this program computes it"):
        exe.run(main, feed=feed, fetch_list=["never_written"], scope=scope)


@pytest.mark.parametrize("seed", [-5, 2**64 + 3])
def test_any_int_is_a_program_seed_and_draws_repeat(seed):
    """Fluid takes any int as random_seed (negative, or beyond 64 bits); each draws the same values
    on every run, and one seed's draw is not another's."""

    def draw(program_seed):
        main, startup = fluid.Program(), fluid.Program()
        startup.random_seed = program_seed
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            fluid.layers.fc(fluid.layers.data("x", [4]), 3)
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            fluid.Executor(fluid.CPUPlace()).run(startup)
            return np.array(scope.find_var("fc_0.w_0").get_tensor())

    np.testing.assert_array_equal(draw(seed), draw(seed))
    assert not np.array_equal(draw(seed), draw(7))
