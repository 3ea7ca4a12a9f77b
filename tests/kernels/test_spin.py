"""The planned data-parallel step's hand-overs spin a while before sleeping (kernels/cpu/runtime/spin.py): a
thread waiting for a counter another thread moves sees it move; it gives up after about a millisecond; the
mark it stores first is there for the other thread. The stage workers run every task with spinning or without,
and hand the first error to the caller."""

import platform
import threading
import time

import numpy as np
import pytest

from pe_cli.executor.stage_workers import StageWorkers
from pe_cli.kernels.cpu import runtime
from pe_cli.kernels.cpu.runtime import spin

x86 = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="spins on x86-64 only")


@x86
def test_a_move_by_another_thread_is_seen():
    counter = np.zeros(2, np.int64)

    def other():  # needs the GIL to store: the spinning thread does not hold it
        time.sleep(0.0005)
        counter[1] = 7

    thread = threading.Thread(target=other)
    thread.start()
    deadline = time.monotonic() + 10
    while not runtime.spin_until_changed(counter, 1, 0) and time.monotonic() < deadline:
        pass
    thread.join()
    assert counter[1] == 7 and runtime.spin_until_changed(counter, 1, 0) is True


@x86
def test_the_wait_is_bounded_and_the_mark_is_stored_first():
    counter, marks = np.zeros(1, np.int64), np.zeros(3, np.int64)
    start = time.perf_counter()
    assert runtime.spin_until_changed(counter, 0, 0, (marks, 2, 5)) is False
    assert time.perf_counter() - start < 0.5  # ~1 ms of the time-stamp counter (SPIN_CYCLES)
    assert marks.tolist() == [0, 0, 5]
    counter[0] = 1
    assert runtime.spin_until_changed(counter, 0, 0) is True


def test_where_nothing_spins_the_mark_is_stored_and_the_wait_returns(monkeypatch):
    monkeypatch.setattr(spin, "_loops", False)
    marks = np.zeros(2, np.int64)
    assert runtime.spin_until_changed(np.zeros(1, np.int64), 0, 0, (marks, 1, 3)) is False
    assert marks.tolist() == [0, 3]


def test_loops_that_do_not_load_mean_no_spinning_not_a_dead_worker(monkeypatch):
    def broken(name):
        def get():
            raise RuntimeError("LLVM refused the intrinsic")

        return get

    monkeypatch.setattr(spin, "_loops", None)
    monkeypatch.setattr(spin, "lazy", broken)
    marks = np.zeros(1, np.int64)
    assert runtime.spin_until_changed(np.zeros(1, np.int64), 0, 0, (marks, 0, 4)) is False
    assert marks.tolist() == [4] and spin._loops is False


@pytest.mark.parametrize("spins", [True, False])
def test_stage_workers_run_every_task_and_raise_the_first_error(spins):
    workers = StageWorkers(2, spin=runtime.spin_until_changed if spins else None)
    try:
        for step in range(50):
            seen = []
            workers.run([lambda: seen.append(0), lambda: seen.append(1), lambda: seen.append(2)])
            assert sorted(seen) == [0, 1, 2]
            if step % 10 == 9:
                time.sleep(0.003)  # (the workers past their spin: asleep on their queues)
        assert workers.posted.tolist() == [50, 50]

        def fail():
            raise ValueError("device 2")

        with pytest.raises(ValueError, match="device 2"):
            workers.run([None, lambda: None, fail])
        workers.run([None, lambda: None, None])  # still usable
    finally:
        workers.close()
