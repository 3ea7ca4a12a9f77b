"""How a planned data-parallel step's stage chooses between running its devices' tasks in the caller and on a
thread a device (planned_parallel._Stage), from the times its calibrating runs measured; and that a real
2-device step makes that choice and keeps op by op's bits whichever it makes."""

import pytest

from pe_cli.executor import planned_parallel
from pe_cli.executor.planned_parallel import CALIBRATION_RUNS, _Stage
from pe_cli.kernels.cpu import runtime
from tests.executor.test_planned_step import assert_same, planned_runs, train


def _stage():
    stage = _Stage(2, [None, None])
    stage.add(0, 0, launched=False)
    stage.add(1, 1, launched=False)
    return stage


def _calibrate(stage, caller, threads):
    for seconds in caller:  # the first runs: every stage in the caller
        stage.seconds += [seconds / 2, seconds / 2]
        stage.timed(False, seconds)
    stage.try_threads()
    assert stage.trial and stage.threaded
    for seconds in threads:  # the trial: on threads (its first run not counted)
        stage.timed(True, seconds)


def test_threads_kept_where_they_beat_the_caller():
    stage = _stage()
    _calibrate(stage, [3e-4] * CALIBRATION_RUNS, [9e-4] + [2e-4] * CALIBRATION_RUNS)
    assert stage.threaded and not stage.trial and not stage.recheck


def test_the_caller_kept_where_it_stays_faster_beside_the_other_stages():
    stage = _stage()
    _calibrate(stage, [2.5e-4] * CALIBRATION_RUNS, [9e-4] + [2.6e-4] * CALIBRATION_RUNS)
    assert not stage.threaded and stage.recheck  # the caller won the first comparison
    for _ in range(CALIBRATION_RUNS):
        stage.timed(False, 2.4e-4)
    assert not stage.threaded and not stage.recheck


def test_threads_taken_where_the_caller_is_slower_beside_the_other_stages():
    """The MLP's reduces and updates: 0.25 ms in the caller while every stage ran there, 0.26 on threads, but
    0.70 in the caller once the backward pass ran on threads (a device's gradients in the other core's cache)."""
    stage = _stage()
    _calibrate(stage, [2.5e-4] * CALIBRATION_RUNS, [9e-4] + [2.6e-4] * CALIBRATION_RUNS)
    assert not stage.threaded and stage.recheck
    for _ in range(CALIBRATION_RUNS):
        stage.timed(False, 7e-4)
    assert stage.threaded and not stage.recheck


@pytest.mark.parametrize("win", [0.0, float("inf")])
def test_a_two_device_step_keeps_op_by_ops_bits_whichever_way_its_stages_run(monkeypatch, win):
    """THREADS_WIN 0: every stage keeps the caller, through its recheck; inf: every stage takes threads."""
    monkeypatch.setattr(runtime, "run_threads", lambda devices: devices)  # (cores free, whatever the host's load)
    monkeypatch.setattr(planned_parallel, "TRIAL_SECONDS", 0.0)
    monkeypatch.setattr(planned_parallel, "THREADS_WIN", win)
    steps = (32,) * (planned_parallel.CALIBRATED_AFTER + CALIBRATION_RUNS + 3)
    planned = train(monkeypatch, "mlp", True, 2, steps)
    assert_same(planned, train(monkeypatch, "mlp", False, 2, steps))
    (run,) = planned_runs(planned[2], 2)
    shared = [stage for stage in run.stages if type(stage) is not list and sum(map(bool, stage.ids)) > 1]
    assert shared and all(stage.threaded == (win > 1) and not stage.recheck for stage in shared)
    assert all(len(stage.context) == (CALIBRATION_RUNS if win < 1 else 0) for stage in shared)
