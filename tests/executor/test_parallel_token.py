"""The scheduler's token (pe_cli/executor/parallel_scheduler.py): on CPU devices threads share the ready
nodes, take turns holding the token and let it go around heavy nodes, found by timing the first runs.
Which thread runs a node, and when, never changes what it computes: the same bits whatever the split,
and failures stay clean."""

import faulthandler
import sys
import time

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import OpError
from pe_cli.executor import parallel_scheduler
from pe_cli.kernels.cpu.runtime import threads

from parallel_nets import batch, build, params

DEVICES, ITERATIONS = 4, 40


@pytest.fixture
def watchdog():
    faulthandler.dump_traceback_later(120, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def every_node_heavy(monkeypatch):
    """Calibrate on the first run and call every node heavy: the token changes hands at every node,
    between a thread per device whatever the machine's load (threads fixed: PE_DEVICE_THREADS)."""
    monkeypatch.setattr(parallel_scheduler, "WARM_RUNS", 0)
    monkeypatch.setattr(parallel_scheduler, "CALIBRATION_RUNS", 1)
    monkeypatch.setattr(parallel_scheduler, "HEAVY_SECONDS", 0.0)
    monkeypatch.setenv("PE_DEVICE_THREADS", "1")
    threads.refresh()
    yield
    monkeypatch.undo()
    threads.refresh()


def train(reduce, data, threads=8, devices=DEVICES, model="mlp", iterations=ITERATIONS):
    main, startup, loss = build(model, lr=0.05)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    bs, es = fluid.BuildStrategy(), fluid.ExecutionStrategy()
    bs.reduce_strategy = reduce
    es.num_threads = threads
    pe = fluid.CompiledProgram(main).with_data_parallel(
        loss.name, build_strategy=bs, exec_strategy=es, places=[fluid.CPUPlace()] * devices
    )
    exe = fluid.Executor(fluid.CPUPlace())
    losses = [exe.run(pe, feed=data[i % len(data)], fetch_list=[loss], scope=scope)[0] for i in range(iterations)]
    schedules = list(pe._engine._schedules.values())
    pe._engine.close()
    return params(main, scope), np.concatenate(losses), schedules


@pytest.mark.parametrize("reduce", ["AllReduce", "Reduce"])
def test_every_node_heavy_gives_the_bits_of_one_thread(reduce, every_node_heavy, watchdog):
    data = [batch(n=16, seed=i) for i in range(3)]
    want, want_losses, _ = train(reduce, data, threads=1)  # one worker: no token, no overlap
    for _ in range(3):
        got, losses, schedules = train(reduce, data)
        assert all(all(s.heavy) for s in schedules)
        np.testing.assert_array_equal(losses, want_losses)
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value)


def test_calibration_marks_the_long_nodes(monkeypatch):
    monkeypatch.setenv(
        "PE_PLANNED_STEP", "0"
    )  # (the op-by-op schedule's calibration: planned, its third run is a plan)
    data = [batch("lenet", n=8, seed=0)]
    _, _, (schedule,) = train(
        "AllReduce", data, devices=2, model="lenet", iterations=parallel_scheduler.CALIBRATION_RUNS + 1
    )
    assert not schedule.calibrating()
    timed = [t for t in schedule.seconds if t != float("inf")]
    assert len(timed) == len(schedule.nodes)  # every node was timed
    assert schedule.heavy == [t >= parallel_scheduler.HEAVY_SECONDS for t in schedule.seconds]


def test_a_failing_heavy_node_is_a_clean_error(every_node_heavy, watchdog):
    main, startup, loss = build(lr=0.05)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    pe = fluid.CompiledProgram(main).with_data_parallel(loss.name, places=[fluid.CPUPlace()] * DEVICES)
    exe = fluid.Executor(fluid.CPUPlace())
    good = batch(n=16)
    exe.run(pe, feed=good, fetch_list=[loss], scope=scope)  # calibrates: every node heavy from now on
    before = params(main, scope)
    bad = {k: v.copy() for k, v in good.items()}
    bad["label"][:] = 99
    for _ in range(10):
        start = time.perf_counter()
        with pytest.raises(OpError, match="softmax_with_cross_entropy"):
            exe.run(pe, feed=bad, fetch_list=[loss], scope=scope)
        assert time.perf_counter() - start < 1.0
    for name, value in before.items():
        np.testing.assert_array_equal(scope.get_array(name), value)
    # nobody kept the token (a worker may still be on its way to park: the caller does not wait for it)
    assert pe._engine._pool._token.acquire(timeout=1)
    pe._engine._pool._token.release()
    (out,) = exe.run(pe, feed=good, fetch_list=[loss], scope=scope)
    assert np.isfinite(out).all()
    pe._engine.close()


def test_workers_join_once_and_stay_parked_between_runs(every_node_heavy, watchdog):
    """A worker is started at a run's first hand-over and then parks on the token between runs: later
    runs wake it, never start another (no thread woken to start or end a run), and it keeps no run's
    values. At most devices - 1 workers join; the numbers stay those of one thread."""
    data = [batch(n=16, seed=i) for i in range(3)]
    want, want_losses, _ = train("AllReduce", data, threads=1, iterations=8)
    main, startup, loss = build("mlp", lr=0.05)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    pe = fluid.CompiledProgram(main).with_data_parallel(loss.name, places=[fluid.CPUPlace()] * DEVICES)
    exe = fluid.Executor(fluid.CPUPlace())
    losses = [exe.run(pe, feed=data[0], fetch_list=[loss], scope=scope)[0]]
    token_threads = pe._engine._pool._token_threads
    started = []
    submit = token_threads.submit
    token_threads.submit = lambda task: (started.append(task), submit(task))
    losses += [exe.run(pe, feed=data[i % len(data)], fetch_list=[loss], scope=scope)[0] for i in range(1, 8)]
    assert 1 <= token_threads.workers <= DEVICES - 1
    assert len(started) <= token_threads.workers  # joined once (the first run may have started some)
    deadline = time.monotonic() + 5
    while token_threads.parked < token_threads.workers and time.monotonic() < deadline:
        time.sleep(0.01)
    assert token_threads.parked == token_threads.workers and token_threads.run is None
    np.testing.assert_array_equal(np.concatenate(losses), want_losses)
    for name, value in want.items():
        np.testing.assert_array_equal(params(main, scope)[name], value)
    pe._engine.close()
    deadline = time.monotonic() + 5
    while token_threads.workers and time.monotonic() < deadline:
        time.sleep(0.01)
    assert token_threads.workers == 0  # close() sends the parked workers home


def test_a_run_takes_turns_on_no_more_threads_than_the_free_cores(every_node_heavy, monkeypatch, watchdog):
    """With another process on all but one core (the load reading, threads._taken_by_others), a run
    of several devices goes on the caller alone: no worker joins, and the numbers stay those of one
    thread; with its threads fixed by PE_DEVICE_THREADS, a run does not follow the load."""
    data = [batch(n=16, seed=i) for i in range(3)]
    want, want_losses, _ = train("AllReduce", data, threads=1, iterations=6)
    monkeypatch.delenv("PE_DEVICE_THREADS")
    monkeypatch.setenv("PE_NUM_THREADS", "2")
    threads.refresh()
    monkeypatch.setattr(threads, "_taken_by_others", lambda: 1)
    assert threads.run_threads(DEVICES) == DEVICES  # (no run yet: nothing read)
    main, startup, loss = build("mlp", lr=0.05)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    pe = fluid.CompiledProgram(main).with_data_parallel(loss.name, places=[fluid.CPUPlace()] * DEVICES)
    exe = fluid.Executor(fluid.CPUPlace())
    losses = [exe.run(pe, feed=data[i % len(data)], fetch_list=[loss], scope=scope)[0] for i in range(6)]
    assert threads.run_threads(DEVICES) == 1
    assert pe._engine._pool._token_threads.workers == 0
    np.testing.assert_array_equal(np.concatenate(losses), want_losses)
    for name, value in want.items():
        np.testing.assert_array_equal(params(main, scope)[name], value)
    pe._engine.close()
    monkeypatch.setenv("PE_DEVICE_THREADS", "1")
    threads.refresh()
    threads.use_devices(DEVICES)
    assert threads.run_threads(DEVICES) == DEVICES
