"""Denormal floats are flushed to zero while pe runs a program, in every thread that runs its
kernels, and the caller's thread gets its IEEE mode back afterwards (pe_cli/kernels/cpu/runtime/denormals.py)."""

import platform

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import FeedError
from pe_cli.kernels.cpu.runtime import denormals

pytestmark = pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64"),
    reason="FTZ/DAZ are x86 modes; elsewhere pe leaves denormals alone",
)

# 3e-39, a float32 denormal (the smallest normal is 1.18e-38), and its half, given by their bits: a
# constant computed in a thread left flushing would be 0 too, and an equality could not fail
TINY, HALF_BITS = np.uint32(2140872).view(np.float32), 1070436


def halve_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 4], dtype="float32")  # its feeds are checked (layers.data's are not)
        y = fluid.layers.scale(x, scale=0.5)
    return main, y


def feed(rows=2):
    return {"x": np.full((rows, 4), TINY, dtype=np.float32)}


def ieee_half():
    """True where numpy in the calling thread halves TINY into a denormal (0 if the thread flushes)."""
    return (np.full(3, TINY, dtype=np.float32) * np.float32(0.5)).view(np.uint32)[0] == HALF_BITS


def test_a_run_flushes_denormals_and_gives_the_caller_its_mode_back():
    main, y = halve_program()
    (out,) = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed(), fetch_list=[y])
    assert not out.any()  # TINY read as 0 (DAZ), and a denormal result made 0 (FTZ)
    assert ieee_half()  # this thread's numpy after the run: IEEE denormals again


def test_a_failing_run_gives_the_caller_its_mode_back_too():
    main, y = halve_program()
    with pytest.raises(FeedError, match=r"feed 'x': expected shape \[-1, 4\] \(-1 is any size\), got \[2, 5\]"):
        fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": np.zeros((2, 5), np.float32)}, fetch_list=[y])
    assert ieee_half()


def test_data_parallel_workers_flush_too():
    main, y = halve_program()
    compiled = fluid.CompiledProgram(main).with_data_parallel(places=[fluid.CPUPlace()] * 2)
    (out,) = fluid.Executor(fluid.CPUPlace()).run(compiled, feed=feed(4), fetch_list=[y])
    assert out.shape == (4, 4) and not out.any()
    assert ieee_half()


def test_numba_workers_started_before_the_first_run_are_flushed_by_it(monkeypatch):
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has a single thread here: no worker to set")
    monkeypatch.setattr(denormals, "_workers_done", False)
    denormals.set_in_workers(False)  # IEEE, as threads started before pe would have it
    assert not (denormals.modes_in_workers()[1:] & denormals.FLUSH).any()
    main, y = halve_program()
    fluid.Executor(fluid.CPUPlace()).run(main, feed=feed(), fetch_list=[y])
    # part 0 is the calling thread, IEEE again after the run; the others are numba's workers
    assert (denormals.modes_in_workers()[1:] & denormals.FLUSH == denormals.FLUSH).all()
    assert ieee_half()


def test_momentum_velocity_does_not_stay_denormal():
    """The case that motivated it: the velocity of a weight whose gradient is 0 decays by mu each step
    and, among denormals, rounds back to itself (0.9 * 3 units in the last place is 3 units)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [3], dtype="float32")
        w = fluid.layers.create_parameter(
            [3, 2], "float32", name="w", default_initializer=fluid.initializer.Constant(1.0)
        )
        loss = fluid.layers.mean(fluid.layers.mul(x, w))
        fluid.optimizer.Momentum(0.1, momentum=0.9).minimize(loss)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    velocity = next(n for n in scope.local_var_names() if "velocity" in n)
    stuck = np.full((3, 2), 3 * np.finfo(np.float32).smallest_subnormal, dtype=np.float32)
    assert (stuck * np.float32(0.9) == stuck).all()  # IEEE: it would never decay
    scope.set_array(velocity, stuck)
    exe.run(main, feed={"x": np.zeros((2, 3), np.float32)}, fetch_list=[loss], scope=scope)
    assert not scope.get_array(velocity).any()


def test_pe_flush_denormals_0_keeps_ieee_denormals(monkeypatch):
    monkeypatch.setenv("PE_FLUSH_DENORMALS", "0")
    monkeypatch.setattr(denormals, "_loops", None)  # read the environment again
    main, y = halve_program()
    (out,) = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed(), fetch_list=[y])
    assert (out.view(np.uint32) == HALF_BITS).all()
