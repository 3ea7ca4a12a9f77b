"""conv2d and conv2d_grad on oneDNN (their Meta's "onednn" variant) launched in planned steps where the device's
share of the cores is one thread (2 devices on 2 cores, a 1-core host, PE_DEVICE_THREADS=1): the plans their out-kernel runs,
bound once (runtime/onednn_prepared.py), run by _onednn_loops.run without the GIL; the bits of op by op for a
convolution of fed values (its filter gradient alone) and one of a launch's output (both gradients, one plan
each), every op launched. On two threads a device they stay Python launches (op by op reads the share at each
call), with the same bits."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.kernels.cpu.runtime import onednn as _onednn

from .test_planned_step import all_launched_in_bits, compiled_segments, planned_runs  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(_onednn.library() is None, reason="the onednn extra is not installed")
STEPS = 3


def run(monkeypatch, planned):
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [16, 10, 10])
        h = fluid.layers.conv2d(x, 16, 3, padding=1)
        h = fluid.layers.conv2d(h, 32, 3, stride=2, padding=1)
        loss = fluid.layers.mean(fluid.layers.square(h))
        fluid.optimizer.SGD(0.01).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    rng, fetched = np.random.default_rng(6), []
    for _ in range(STEPS):
        feed = {"x": rng.standard_normal((8, 16, 10, 10)).astype(np.float32)}
        fetched.append(exe.run(main, feed=feed, fetch_list=[loss, h], scope=scope))
    fetched.append([np.array(scope.get_array(p.name)) for p in main.all_parameters()])
    return fetched, exe


def test_onednn_convolutions_and_their_gradients_are_launched_on_one_thread(monkeypatch):
    from pe_cli.kernels.cpu import _onednn_loops

    monkeypatch.setattr(_onednn, "parallel_threads", lambda: 1)
    planned, exe = run(monkeypatch, True)
    unplanned, _ = run(monkeypatch, False)
    ops = all_launched_in_bits(planned, unplanned, exe)
    conv = [t for t, launches in ops for launch in launches if launch.fn is _onednn_loops.run]
    assert conv == ["conv2d", "conv2d", "conv2d_grad", "conv2d_grad"]


def test_on_two_threads_they_run_op_by_op_between_segments(monkeypatch):
    monkeypatch.setattr(_onednn, "parallel_threads", lambda: 2)
    planned, exe = run(monkeypatch, True)
    unplanned, _ = run(monkeypatch, False)
    for got, want in zip(planned, unplanned, strict=True):
        assert all(a.tobytes() == b.tobytes() for a, b in zip(got, want))
    (plan,) = (r.plan for r in planned_runs(exe, 1))
    python = [s.op.type for s, launches in zip(plan.steps, plan.launches) if launches is None]
    assert [t for t in python if t.startswith("conv2d")] == ["conv2d", "conv2d", "conv2d_grad", "conv2d_grad"]
