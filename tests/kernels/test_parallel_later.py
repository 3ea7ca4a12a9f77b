"""A first run does not wait for numba (kernels/cpu/runtime/loops.py): a loop numba can cache is compiled by
a helper process (its numpy replica runs meanwhile), a parallel twin after the serial loops; a twin
the helper cannot take compiles in a thread of this process once no other thread is compiling."""

import importlib
import textwrap
import time

import numba
import numpy as np

from pe_cli.kernels import finish_compiling
from pe_cli.kernels.cpu.runtime import loops as _numba


def _fresh_twin():
    @numba.njit(parallel=True, nogil=True)  # no cache: a twin no run has compiled
    def double_parallel(x, out):
        for i in numba.prange(x.size):
            out[i] = 2 * x[i]

    return double_parallel


def test_a_twin_not_compiled_yet_is_compiled_in_the_background_then_used():
    twin = _fresh_twin()
    x, out = np.arange(8.0), np.empty(8)
    assert not _numba.parallel_ready(twin, x, out)  # the caller runs its serial loop
    assert not _numba.parallel_ready(twin, x, out)  # asked again: still waiting, queued once
    finish_compiling()
    assert _numba.parallel_ready(twin, x, out)
    twin(x, out)
    assert out.tolist() == (2 * x).tolist()


def test_the_background_compile_waits_for_the_other_threads_compiles():
    later = _numba._Later()
    later.QUIET_S = 0.2
    twin = _fresh_twin()
    later.others = {1: 1}  # another thread is compiling a serial loop
    assert not later.ready(twin, (np.arange(4.0), np.empty(4)))
    time.sleep(0.5)
    assert not twin.overloads  # it waited
    later.others = {}
    later.last = time.monotonic()
    later.finish()
    assert twin.overloads


FRESH_LOOPS = textwrap.dedent("""
    import numba

    from pe_cli.kernels.cpu.runtime.numba_cache import install

    install()  # as every loops module of pe: numba's cache in pe's folder, for the helper and the caller

    @numba.njit(cache=True, nogil=True)
    def triple(x, out):
        for i in range(x.size):
            out[i] = 3 * x[i]

    @numba.njit(cache=True, nogil=True, parallel=True)
    def triple_parallel(x, out):
        for i in numba.prange(x.size):
            out[i] = 3 * x[i]
""")


def _fresh_module(tmp_path, monkeypatch, name):
    """A module of cacheable loops no run has compiled (numba caches them under tmp_path)."""
    (tmp_path / f"{name}.py").write_text(FRESH_LOOPS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module(name)


def test_a_cacheable_loop_is_compiled_by_the_helper_process_then_loaded(tmp_path, monkeypatch):
    # the helper and this process share pe's numba cache folder, as in a run: this process's numba read
    # its folder once (numba_cache.install()), so pointing only the helper elsewhere would make every
    # loop it compiled invisible here (the fresh module's folder in that cache is named after tmp_path)
    loops = _fresh_module(tmp_path, monkeypatch, "fresh_loops_a")
    later = _numba._Later()
    x, out = np.arange(5.0), np.empty(5)
    try:
        assert not later.ready(loops.triple, (x, out), first=True)  # the caller runs the replica
        assert not later.ready(loops.triple_parallel, (x, out))  # the twin queues behind it
        assert not later.ready(loops.triple, (x, out), first=True)  # asked again: still one request
        assert later.helper.sent == 2
        later.finish()
        assert not loops.triple.overloads and not loops.triple_parallel.overloads  # not compiled here
        assert later.ready(loops.triple, (x, out), first=True)  # but found in numba's cache
        assert later.ready(loops.triple_parallel, (x, out))
        assert loops.triple.overloads and loops.triple_parallel.overloads
    finally:
        _let_go(later)
    loops.triple(x, out)
    assert out.tolist() == [0.0, 3.0, 6.0, 9.0, 12.0]


def _let_go(later):
    """Closes this test's own helper and reaps it: tests/data/test_async_executor.py counts this process's
    children, and an unreaped helper of a test run before it in the same worker failed it."""
    later.helper.close()
    if later.helper.proc is not None:
        later.helper.proc.wait(timeout=60)


def test_loop_or_gives_the_replica_until_the_loop_is_ready(tmp_path, monkeypatch):
    loops = _fresh_module(tmp_path, monkeypatch, "fresh_loops_b")
    later = _numba._Later()
    monkeypatch.setattr(_numba, "_compiled_later", later)
    x, out = np.arange(3.0), np.empty(3)

    def replica(x, out):
        out[:] = 3 * x

    try:
        assert _numba.loop_or(replica, loops.triple, x, out) is replica
        later.finish()
        assert _numba.loop_or(replica, loops.triple, x, out) is loops.triple
    finally:
        _let_go(later)


def test_without_the_helper_a_loop_compiles_on_its_call(tmp_path, monkeypatch):
    monkeypatch.setenv("PE_COMPILE_HELPER", "0")
    loops = _fresh_module(tmp_path, monkeypatch, "fresh_loops_c")
    later = _numba._Later()
    assert later.ready(loops.triple, (np.arange(2.0), np.empty(2)), first=True)
    assert later.helper.proc is None
