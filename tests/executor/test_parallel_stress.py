"""The threaded executor under load: many iterations on 4 devices with 8 threads never hang and
always give the same bits; a failing op stops the run cleanly and quickly."""

import faulthandler
import sys
import time

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import OpError

from parallel_nets import batch, build, params

DEVICES, THREADS, ITERATIONS, REPEATS = 4, 8, 200, 20


@pytest.fixture
def watchdog():
    """A hang fails the run loudly (tracebacks of every thread) instead of blocking it forever."""
    faulthandler.dump_traceback_later(120, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


def train(reduce, data):
    main, startup, loss = build(lr=0.05)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    bs, es = fluid.BuildStrategy(), fluid.ExecutionStrategy()
    bs.reduce_strategy = reduce
    es.num_threads = THREADS
    es.num_iteration_per_drop_scope = 7
    pe = fluid.CompiledProgram(main).with_data_parallel(
        loss.name, build_strategy=bs, exec_strategy=es, places=[fluid.CPUPlace()] * DEVICES
    )
    exe = fluid.Executor(fluid.CPUPlace())
    losses = [exe.run(pe, feed=data[i % len(data)], fetch_list=[loss], scope=scope)[0] for i in range(ITERATIONS)]
    pe._engine.close()
    return params(main, scope), np.concatenate(losses)


def test_many_iterations_never_hang_and_always_give_the_same_bits(watchdog):
    data = [batch(n=16, seed=i) for i in range(5)]
    first = {}
    for repeat in range(REPEATS):
        reduce = "AllReduce" if repeat % 2 == 0 else "Reduce"
        got, losses = train(reduce, data)
        if reduce not in first:
            first[reduce] = (got, losses)
            assert np.isfinite(losses).all()
            continue
        want, want_losses = first[reduce]
        np.testing.assert_array_equal(losses, want_losses)
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value)
    for name, value in first["AllReduce"][0].items():  # the two strategies agree closely too
        np.testing.assert_allclose(first["Reduce"][0][name], value, rtol=1e-5, atol=1e-6)


def failing_executor(threads=THREADS):
    main, startup, loss = build(lr=0.05)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    es = fluid.ExecutionStrategy()
    es.num_threads = threads
    pe = fluid.CompiledProgram(main).with_data_parallel(
        loss.name, exec_strategy=es, places=[fluid.CPUPlace()] * DEVICES
    )
    return main, loss, scope, pe


def test_an_op_failing_in_a_worker_is_a_clean_error_in_the_caller(watchdog):
    main, loss, scope, pe = failing_executor()
    exe = fluid.Executor(fluid.CPUPlace())
    good = batch(n=16)
    exe.run(pe, feed=good, fetch_list=[loss], scope=scope)
    before = params(main, scope)
    bad = {k: v.copy() for k, v in good.items()}
    bad["label"][-1] = 99  # a class id past the 4 classes: the loss kernel fails
    start = time.perf_counter()
    with pytest.raises(
        OpError,
        match=r"op 'softmax_with_cross_entropy' .*: Label holds 99 at row 3, outside the 4 classes of Logits \[4, 4\]",
    ) as info:
        exe.run(pe, feed=bad, fetch_list=[loss], scope=scope)
    assert time.perf_counter() - start < 1.0
    error = info.value
    message = str(error)
    assert error.op is not None and error.op.type == "softmax_with_cross_entropy"
    assert "softmax_with_cross_entropy" in message and "CPUPlace(3)" in message  # the last device got it
    assert "parallel_nets.py:" in message  # where it was built
    assert "99" in message  # what went wrong
    for name, value in before.items():  # a failed run changes no parameter
        np.testing.assert_array_equal(scope.get_array(name), value)
    # the executor still works, and gives what it would have given without the failed run
    (after,) = exe.run(pe, feed=good, fetch_list=[loss], scope=scope)
    main2, loss2, scope2, pe2 = failing_executor()
    for _ in range(2):
        (want,) = exe.run(pe2, feed=good, fetch_list=[loss2], scope=scope2)
    np.testing.assert_array_equal(after, want)


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_failures_on_every_device_at_once_never_leave_threads_hanging(threads, watchdog):
    main, loss, scope, pe = failing_executor(threads)
    exe = fluid.Executor(fluid.CPUPlace())
    bad = batch(n=16)
    bad["label"][:] = 99
    for _ in range(20):
        with pytest.raises(OpError, match="softmax_with_cross_entropy"):
            exe.run(pe, feed=bad, fetch_list=[loss], scope=scope)
    exe.run(pe, feed=batch(n=16), fetch_list=[loss], scope=scope)
    workers = list(pe._engine._pool._threads)
    assert len(workers) == max(threads - 1, 1) and all(t.is_alive() for t in workers)
    pe._engine.close()
    for t in workers:
        t.join(timeout=5)
    assert not any(t.is_alive() for t in workers)
