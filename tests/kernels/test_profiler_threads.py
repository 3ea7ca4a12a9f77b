"""The profiler (per-op kernel times, kernels/dispatch/data split) and the thread rule."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base import profiler
from pe_cli.kernels.cpu.runtime import threads
from pe_cli.base.errors import PeError


def _mlp_program():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        image = fluid.layers.data("image", [20])
        label = fluid.layers.data("label", [1], dtype="int64")
        hidden = fluid.layers.fc(image, 16, act="relu")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(hidden, 4), label))
        fluid.optimizer.Momentum(0.1, momentum=0.9).minimize(loss)
    rng = np.random.default_rng(0)
    feed = {"image": rng.random((8, 20), dtype=np.float32), "label": rng.integers(0, 4, (8, 1))}
    return main, startup, loss, feed


def test_collect_times_every_op_and_splits_the_run():
    main, startup, loss, feed = _mlp_program()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with profiler.collect() as prof:
        for _ in range(3):
            exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    assert profiler.active() is None
    summary = prof.summary()
    ops = main.global_block().ops
    assert summary["runs"] == 3 and summary["ops_per_run"] == len(ops)
    assert {op.type for op in ops} == set(prof.ops)
    assert sum(calls for calls, *_ in prof.ops.values()) == 3 * len(ops)
    assert 0 < summary["kernel_ms"] <= summary["step_ms"]
    assert summary["dispatch_ms"] >= 0 and summary["data_ms"] >= 0
    assert summary["kernel_ms"] + summary["dispatch_ms"] + summary["data_ms"] == pytest.approx(summary["step_ms"])
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)  # not collecting: nothing recorded
    assert prof.summary()["runs"] == 3


def test_profiling_does_not_change_the_numbers():
    main, startup, loss, feed = _mlp_program()
    losses = []
    for profiled in (False, True):
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        with profiler.collect() if profiled else _nothing():
            losses.append([exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0] for _ in range(3)])
    np.testing.assert_array_equal(losses[0], losses[1])


def test_ops_a_loop_runs_are_profiled_inside_the_loops_time():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [4], append_batch_size=False)
        i = fluid.layers.fill_constant([1], "int64", 0)
        n = fluid.layers.fill_constant([1], "int64", 5)
        acc = fluid.layers.fill_constant([4], "float32", 0.0)
        cond = fluid.layers.less_than(i, n)
        loop = fluid.layers.While(cond)
        with loop.block():
            fluid.layers.assign(fluid.layers.elementwise_add(acc, fluid.layers.scale(x, 2.0)), acc)
            fluid.layers.increment(i, in_place=True)
            fluid.layers.less_than(i, n, cond=cond)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with profiler.collect() as prof:
        (out,) = exe.run(main, feed={"x": np.ones(4, np.float32)}, fetch_list=[acc], scope=scope)
    np.testing.assert_array_equal(out, np.full(4, 10.0, np.float32))
    assert prof.ops["while/scale"][0] == prof.ops["while/elementwise_add"][0] == 5
    top = {name: total for name, (_, total, _, _) in prof.ops.items() if "/" not in name}
    assert set(top) == {op.type for op in main.global_block().ops}
    assert prof.kernels == pytest.approx(sum(top.values()))  # the loop's ops counted once, in its time
    assert prof.ops["while/scale"][1] + prof.ops["while/elementwise_add"][1] <= top["while"]


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def test_fluid_profiler_prints_and_writes_the_table(tmp_path, capsys):
    main, startup, loss, feed = _mlp_program()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    path = tmp_path / "profile.txt"
    with fluid.profiler.profiler("CPU", sorted_key="total", profile_path=str(path)):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    printed = capsys.readouterr().out
    assert "mul" in printed and "dispatch" in printed
    assert b"mul" in path.read_bytes()  # Fluid's binary profile (tests/fluid/test_fluid_api_names.py)
    with pytest.raises(ValueError, match="sorted_key"):
        profiler.Profile().table("fastest")


def test_parallel_executor_runs_are_profiled():
    main, startup, loss, feed = _mlp_program()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[fluid.CPUPlace()] * 2)
    with profiler.collect() as prof:
        exe.run(compiled, feed=feed, fetch_list=[loss], scope=scope)
    assert prof.summary()["runs"] == 1
    assert prof.ops["mul"][0] == 2 * sum(op.type == "mul" for op in main.global_block().ops)


def test_thread_rule(monkeypatch):
    for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS", "PE_DEVICE_THREADS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PE_NUM_THREADS", "4")
    assert threads.cores() == 4
    assert [threads.device_threads(d) for d in (1, 2, 3, 4, 8)] == [4, 2, 1, 1, 1]
    monkeypatch.setenv("PE_DEVICE_THREADS", "3")
    assert threads.device_threads(2) == 3
    monkeypatch.delenv("PE_DEVICE_THREADS")
    assert not threads.user_sets_blas()
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")  # the user chose: pe leaves BLAS alone
    assert threads.user_sets_blas()
    assert "BLAS threads left to the environment" in threads.describe(1)
    monkeypatch.setenv("PE_NUM_THREADS", "two")
    with pytest.raises(PeError, match="PE_NUM_THREADS"):
        threads.cores()


def test_use_devices_sizes_blas_and_the_kernels_share(monkeypatch):
    import threadpoolctl

    for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS", "PE_DEVICE_THREADS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PE_NUM_THREADS", "2")
    blas = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    if not blas:
        pytest.skip("no BLAS library that threadpoolctl can size")
    before = blas[0]["num_threads"]
    threads.refresh()
    monkeypatch.setattr(threads, "_taken_by_others", lambda: 0)  # the rule on a quiet machine
    try:
        threads.use_devices(2)
        assert threads.kernel_threads() == 1 and _blas_threads(threadpoolctl) == 1
        threads.use_devices(1)
        assert threads.kernel_threads() == 2
        threads.for_gemm(threads.SMALL_GEMM_MACS * 4)
        if threads.pool_calls_blas():  # pe's pool runs the GEMMs: BLAS stays single-threaded
            assert _blas_threads(threadpoolctl) == 1
        else:  # BLAS threads for large GEMMs only
            assert _blas_threads(threadpoolctl) == 2
            threads.for_gemm(threads.SMALL_GEMM_MACS // 4)
            assert _blas_threads(threadpoolctl) == 1
    finally:
        threadpoolctl.threadpool_limits(before, user_api="blas")
        threads.refresh()


def test_one_device_runs_its_loops_on_every_core_it_is_given_and_two_devices_split_them(monkeypatch):
    """PE_NUM_THREADS=2 on a quiet machine: one device's kernels split their work in 2 parts and run
    numba's loops on 2 threads (issue 79: a single device uses the cores it is given); 2 devices get
    1 each. Another process's load takes threads away, never parts: a run's numbers do not follow
    the load (threads.work_parts)."""
    import numba
    from pe_cli.kernels.cpu.runtime import loops as _numba

    for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS", "PE_DEVICE_THREADS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PE_NUM_THREADS", "2")
    threads.refresh()
    taken = [0]
    monkeypatch.setattr(threads, "_taken_by_others", lambda: taken[0])
    _numba._choose_layer()
    # numba's loops run parallel where pe's pool calls BLAS and a thread-safe layer exists (else 1)
    pool = 2 if threads.pool_calls_blas() and _numba._layer_ok and numba.config.NUMBA_NUM_THREADS >= 2 else 1
    try:
        seen = {}
        for devices in (1, 2, 1):
            threads.use_devices(devices)
            seen[devices] = (threads.kernel_threads(), threads.work_parts(), _numba.parallel_threads())
        assert seen == {1: (2, 2, pool), 2: (1, 1, 1)}
        assert numba.get_num_threads() == pool  # set for this thread by parallel_threads
        taken[0] = 1  # another process keeps a core busy
        threads.use_devices(1)
        assert (threads.kernel_threads(), threads.work_parts(), _numba.parallel_threads()) == (1, 2, 1)
    finally:
        threads.refresh()


def _blas_threads(threadpoolctl):
    return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"][0]


def test_host_memory_is_kept_between_steps():
    import resource
    import sys
    from pe_cli.kernels.cpu.runtime import host_memory

    fluid.Executor(fluid.CPUPlace())
    if not sys.platform.startswith("linux") or not host_memory.keep_freed_memory():
        pytest.skip("glibc malloc only")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        image = fluid.layers.data("image", [1, 28, 28])
        conv = fluid.layers.conv2d(image, 6, 5, padding=2, act="relu")
        loss = fluid.layers.mean(fluid.layers.pool2d(conv, 2, pool_stride=2))
        fluid.optimizer.SGD(0.01).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    feed = {"image": np.random.default_rng(0).random((64, 1, 28, 28), dtype=np.float32)}
    for _ in range(3):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5
    assert faults < 100, f"{faults:.0f} page faults a step: freed buffers went back to the kernel"


_BIG_GRADIENT_STEPS = r"""
import json, resource, sys, threading
import numpy as np
import pe_cli.fluid as fluid
from pe_cli.kernels.cpu.runtime import host_memory
exe = fluid.Executor(fluid.CPUPlace())
if not host_memory.keep_freed_memory():
    print(json.dumps(None)); sys.exit(0)
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.layers.data("x", [3072])
    loss = fluid.layers.mean(fluid.layers.fc(x, 3072))
    fluid.optimizer.SGD(0.01).minimize(loss)
scope = fluid.Scope()
exe.run(startup, scope=scope)
feed = {"x": np.random.default_rng(0).random((4, 3072), dtype=np.float32)}
faults = {}

def steps(where):
    for _ in range(3):  # (the third is the first planned step: the plan's buffers are first touched then)
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(4):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    faults[where] = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 4

steps("this thread")
worker = threading.Thread(target=steps, args=("another thread",))
worker.start()
worker.join()
print(json.dumps(faults))
"""


def test_blocks_over_the_mmap_threshold_are_kept_too_on_other_threads():
    """A weight gradient of 36 MiB (over glibc's largest mmap threshold, 32 MiB) is not mapped and
    faulted in anew each step, on the calling thread or on another one (host_memory.py: no mmap,
    one arena). In a fresh process: malloc's settings hold from the first executor on."""
    import json
    import subprocess
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("glibc malloc only")
    done = subprocess.run([sys.executable, "-c", _BIG_GRADIENT_STEPS], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    faults = json.loads(done.stdout.strip().splitlines()[-1])
    if faults is None:
        pytest.skip("malloc is not glibc's")
    # a 36 MiB block faulted in anew: 9,216 faults of 4 KiB pages (18 of 2 MiB huge pages)
    for where, count in faults.items():
        assert count < 10, f"{count:.0f} page faults a step on {where}: the gradient was mapped anew"


def test_kernels_leave_a_core_that_another_process_keeps_busy(monkeypatch):
    """The threads follow the free cores (kernels/cpu/runtime/cpu_load.py): with a busy process beside it,
    one device of a 2-core share gets one thread; PE_DEVICE_THREADS fixes the count."""
    import subprocess
    import sys
    import time

    monkeypatch.delenv("PE_DEVICE_THREADS", raising=False)
    monkeypatch.setenv("PE_NUM_THREADS", "2")
    threads.refresh()
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        threads.use_devices(1)  # the first reading
        time.sleep(2 * threads.LOAD_EVERY_S + 0.3)
        threads.use_devices(1)  # the load since then: the busy process holds a core
        assert threads.kernel_threads() == 1
        monkeypatch.setenv("PE_DEVICE_THREADS", "2")
        threads.refresh()
        threads.use_devices(1)
        time.sleep(threads.LOAD_EVERY_S + 0.1)
        threads.use_devices(1)
        assert threads.kernel_threads() == 2
    finally:
        busy.kill()
        busy.wait()
        threads.refresh()


def test_a_run_that_starts_beside_a_busy_process_leaves_its_core_from_the_first_step(monkeypatch):
    """Before a first interval of load has been measured, the rule counts the other processes'
    threads running at that instant (cpu_load.others_running): no first 0.25 s of stalls."""
    import os
    import subprocess
    import sys
    import time
    from pe_cli.kernels.cpu.runtime import cpu_load

    if len(os.sched_getaffinity(0)) < (os.cpu_count() or 1):
        pytest.skip("this process may not run on every CPU: procs_running would count CPUs it cannot use")
    monkeypatch.delenv("PE_DEVICE_THREADS", raising=False)
    monkeypatch.setenv("PE_NUM_THREADS", "2")
    threads.refresh()
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)  # started, and spinning
        assert cpu_load.others_running() >= 1
        threads.use_devices(1)  # the first reading: no interval yet
        assert threads.kernel_threads() == 1
    finally:
        busy.kill()
        busy.wait()
        threads.refresh()
