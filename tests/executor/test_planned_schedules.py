"""The step counter and the learning-rate schedules in planned steps (issue 95): increment advances the
counter in place and lr_schedule writes the step's rate inside the segment that trains with it
(_schedule_loops.lr_rate), so a training step with a schedule is one segment; the rates, losses and
parameters are op by op's, bit for bit, on every schedule kind; a rate that is no real number is refused in
one line by both paths."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.layers import lr_schedule as schedules

from .test_planned_step import planned_runs

KINDS = {
    "exponential": lambda: schedules.exponential_decay(0.1, 2, 0.7, staircase=True),
    "natural_exp": lambda: schedules.natural_exp_decay(0.1, 3, 0.4),
    "inverse_time": lambda: schedules.inverse_time_decay(0.1, 2, 0.5),
    "polynomial": lambda: schedules.polynomial_decay(0.1, 3, 0.01, power=1.5, cycle=True),
    "piecewise": lambda: schedules.piecewise_decay([2, 4], [0.1, 0.05, 0.01]),
    "cosine": lambda: schedules.cosine_decay(0.1, 2, 5),
    "noam": lambda: schedules.noam_decay(16, 3, learning_rate=0.5),
    "linear_warmup": lambda: schedules.linear_lr_warmup(schedules.exponential_decay(0.1, 2, 0.9), 3, 0.0, 0.1),
}
STEPS = 6


@pytest.fixture(autouse=True)
def compiled_segments(monkeypatch):
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "0")


def train(monkeypatch, planned, make_rate):
    """STEPS momentum steps of a small softmax regression whose rate is ``make_rate()``: the (rate, loss)
    fetched at each step, the parameters after them, the executor."""
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x, label = fluid.layers.data("x", [12]), fluid.layers.data("label", [1], dtype="int64")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(x, 4), label))
        rate = make_rate()
        fluid.optimizer.Momentum(rate, 0.9).minimize(loss)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(3)
    fetched = []
    for _ in range(STEPS):
        feed = {"x": rng.standard_normal((8, 12)).astype(np.float32), "label": rng.integers(0, 4, (8, 1))}
        fetched.append(exe.run(main, feed=feed, fetch_list=[rate, loss], scope=scope))
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    return fetched, params, exe


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_schedule_and_its_counter_are_launched_with_op_by_ops_bits(monkeypatch, kind):
    from pe_cli.kernels.cpu import _elementwise_loops, _schedule_loops

    planned, params, exe = train(monkeypatch, True, KINDS[kind])
    unplanned, unplanned_params, _ = train(monkeypatch, False, KINDS[kind])
    for (rate, loss), (rate_0, loss_0) in zip(planned, unplanned):
        assert rate.dtype == np.float32 and rate.tobytes() == rate_0.tobytes() and loss.tobytes() == loss_0.tobytes()
    assert len({r.tobytes() for r, _ in planned}) > 1  # (the rate moved over the steps)
    assert params.keys() == unplanned_params.keys()
    assert all(params[n].tobytes() == unplanned_params[n].tobytes() for n in params)
    (run,) = planned_runs(exe, 1)
    ops = [(step.op.type, launches) for step, launches in zip(run.plan.steps, run.plan.launches)]
    assert [t for t, launches in ops if launches is None] == []  # (every op launched: the step one segment)
    fns = [(t, [launch.fn for launch in launches]) for t, launches in ops if t in ("increment", "lr_schedule")]
    rates = [(t, [_schedule_loops.lr_rate]) for t, _ in fns if t == "lr_schedule"]
    assert fns == [("increment", [_elementwise_loops.scale]), *rates] and rates


def test_a_rate_that_is_no_real_number_is_refused_in_one_line_by_both_paths(monkeypatch):
    """inverse_time_decay with decay_rate -0.5 divides by zero at step 2 (1 - 0.5 * 2): the planned step (its
    launch checked) and op by op both stop there, with the op named."""
    for planned in (True, False):
        with pytest.raises(PeError, match=r"lr_schedule \(inverse_time\): the rate is no real number") as err:
            train(monkeypatch, planned, lambda: schedules.inverse_time_decay(0.1, 1, -0.5))
        assert "\n" not in str(err.value).strip()
