"""Learning-rate schedules: the rate fetched over N runs matches each closed-form formula, with the
step counter living in the graph (persistable, initialized by the startup program, advanced by an
``increment`` op of role LRSched), for fluid.layers' schedules (Fluid's graphs of ops) and a model
config's (pe's one lr_schedule op each, pe_cli/layers/lr_schedule.py)."""

import math

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.framework import OpRole
from pe_cli.layers import lr_schedule

N = 12


def run_schedule(make_lr, steps=N, with_optimizer=True):
    """Builds a tiny model trained by SGD on the schedule; returns the rate of each run."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [3])
        loss = fluid.layers.mean(fluid.layers.fc(x, 1))
        lr = make_lr()
        if with_optimizer:
            fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": np.ones((2, 3), dtype="float32")}
    rates = [float(exe.run(main, feed=feed, fetch_list=[lr], scope=scope)[0][0]) for _ in range(steps)]
    return rates, main, startup, scope


def exponential(step, lr, decay_steps, rate, staircase=False):
    div = step / decay_steps
    return lr * rate ** (math.floor(div) if staircase else div)


def natural_exp(step, lr, decay_steps, rate, staircase=False):
    div = step / decay_steps
    return lr * math.exp(-rate * (math.floor(div) if staircase else div))


def inverse_time(step, lr, decay_steps, rate, staircase=False):
    div = step / decay_steps
    return lr / (1 + rate * (math.floor(div) if staircase else div))


def polynomial(step, lr, decay_steps, end=1e-4, power=1.0, cycle=False):
    if cycle:
        decay_steps = decay_steps * max(math.ceil(step / decay_steps), 1)
    else:
        step = min(step, decay_steps)
    return (lr - end) * (1 - step / decay_steps) ** power + end


def piecewise(step, boundaries, values):
    for b, v in zip(boundaries, values):
        if step < b:
            return v
    return values[-1]


def cosine(step, lr, step_each_epoch, epochs):
    return lr * 0.5 * (math.cos(math.floor(step / step_each_epoch) * math.pi / epochs) + 1)


def noam(step, d_model, warmup, lr=1.0):
    return lr * d_model**-0.5 * min(step**-0.5, warmup**-1.5 * step)


def warmup(step, base, warmup_steps, start, end):
    return start + (end - start) * step / warmup_steps if step < warmup_steps else base


def schedules(L):
    """{name: (build, formula)} with the schedules of ``L`` (fluid.layers, or lr_schedule)."""
    return {
        "exponential": (lambda: L.exponential_decay(0.1, 4, 0.5), lambda s: exponential(s, 0.1, 4, 0.5)),
        "exponential_staircase": (
            lambda: L.exponential_decay(0.1, 4, 0.5, staircase=True),
            lambda s: exponential(s, 0.1, 4, 0.5, True),
        ),
        "natural_exp": (lambda: L.natural_exp_decay(0.2, 3, 0.4), lambda s: natural_exp(s, 0.2, 3, 0.4)),
        "natural_exp_staircase": (
            lambda: L.natural_exp_decay(0.2, 3, 0.4, True),
            lambda s: natural_exp(s, 0.2, 3, 0.4, True),
        ),
        "inverse_time": (lambda: L.inverse_time_decay(0.5, 2, 0.25), lambda s: inverse_time(s, 0.5, 2, 0.25)),
        "inverse_time_staircase": (
            lambda: L.inverse_time_decay(0.5, 5, 0.5, staircase=True),
            lambda s: inverse_time(s, 0.5, 5, 0.5, True),
        ),
        "polynomial": (
            lambda: L.polynomial_decay(0.1, 8, end_learning_rate=0.01, power=2.0),
            lambda s: polynomial(s, 0.1, 8, 0.01, 2.0),
        ),
        "polynomial_cycle": (
            lambda: L.polynomial_decay(0.1, 5, cycle=True),
            lambda s: polynomial(s, 0.1, 5, cycle=True),
        ),
        "piecewise": (
            lambda: L.piecewise_decay([3, 7], [1.0, 0.5, 0.1]),
            lambda s: piecewise(s, [3, 7], [1.0, 0.5, 0.1]),
        ),
        "cosine": (lambda: L.cosine_decay(0.4, 3, 4), lambda s: cosine(s, 0.4, 3, 4)),
        "noam": (lambda: L.noam_decay(64, 5), lambda s: noam(s + 1, 64, 5)),  # noam's counter starts at 1
        "noam_lr": (lambda: L.noam_decay(16, 4, learning_rate=2.0), lambda s: noam(s + 1, 16, 4, 2.0)),
        "linear_warmup": (lambda: L.linear_lr_warmup(0.3, 5, 0.0, 0.2), lambda s: warmup(s, 0.3, 5, 0.0, 0.2)),
        "warmup_then_exponential": (
            lambda: L.linear_lr_warmup(L.exponential_decay(0.1, 2, 0.5), 4, 0.01, 0.1),
            lambda s: warmup(s, exponential(s, 0.1, 2, 0.5), 4, 0.01, 0.1),
        ),
        "switch_numbers": (
            lambda: L.switch_schedule([3, 7], [1.0, 0.5, 0.1]),
            lambda s: piecewise(s, [3, 7], [1.0, 0.5, 0.1]),
        ),
        # pieces that are schedules: warm up for 4 steps, hold, then decay (each piece counts from step 0)
        "switch_schedules": (
            lambda: L.switch_schedule(
                [4, 6], [L.linear_lr_warmup(0.2, 4, 0.0, 0.2), 0.2, L.exponential_decay(0.4, 2, 0.5)]
            ),
            lambda s: piecewise(s, [4, 6], [warmup(s, 0.2, 4, 0.0, 0.2), 0.2, exponential(s, 0.4, 2, 0.5)]),
        ),
    }


L = fluid.layers


@pytest.mark.parametrize("name", sorted(schedules(L)))
@pytest.mark.parametrize("module", [L, lr_schedule], ids=["fluid", "config"])
def test_rate_over_runs_matches_formula(name, module):
    make, formula = schedules(module)[name]
    rates, _, _, _ = run_schedule(make)
    want = [formula(s) for s in range(N)]
    np.testing.assert_allclose(rates, np.float32(want), rtol=1e-6, err_msg=name)


def test_schedule_drives_the_update():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [3])
        w = fluid.ParamAttr(name="w", initializer=fluid.initializer.ConstantInitializer(1.0))
        loss = fluid.layers.mean(fluid.layers.fc(x, 1, param_attr=w, bias_attr=False))
        lr = L.piecewise_decay([2], [0.5, 0.25])
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": np.ones((2, 3), dtype="float32")}
    ws = [exe.run(main, feed=feed, fetch_list=["w"], scope=scope)[0][0, 0] for _ in range(4)]
    # d(mean(x w))/dw = 1 for x of ones: w falls by the rate of each run
    np.testing.assert_allclose(ws, [0.5, 0.0, -0.25, -0.5])


def test_counter_is_one_persistable_variable_advanced_by_increment():
    def make():
        a = L.exponential_decay(0.1, 4, 0.5)
        b = L.cosine_decay(0.1, 4, 2)
        return a + b

    rates, main, startup, scope = run_schedule(make, steps=3)
    block = main.global_block()
    counter = block.var("@LR_DECAY_COUNTER@")
    assert counter.persistable and counter.dtype == "int64"
    incs = [op for op in block.ops if op.type == "increment"]
    assert len(incs) == 1 and block.ops[0] is incs[0] and incs[0].role == OpRole.LRSched
    scheduled = [op for op in block.ops if op.type in ("cast", "floor", "cos", "elementwise_pow")]
    assert len(scheduled) == 5 and all(op.role == OpRole.LRSched for op in scheduled)  # Fluid's ops
    assert "@LR_DECAY_COUNTER@" in {n for op in startup.global_block().ops for n in op.output_arg_names}
    assert np.asarray(scope.find_var("@LR_DECAY_COUNTER@").get_tensor()).tolist() == [2]


def test_rate_without_optimizer_and_each_fetch_is_one_step():
    rates, _, _, _ = run_schedule(lambda: L.exponential_decay(1.0, 1, 0.5), steps=4, with_optimizer=False)
    np.testing.assert_allclose(rates, [1.0, 0.5, 0.25, 0.125])


def test_lr_is_a_float32_one_value_variable():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        lr, config_lr = L.polynomial_decay(0.1, 10), lr_schedule.polynomial_decay(0.1, 10)
    assert lr.dtype == "float32" and list(lr.shape) == [1]
    assert config_lr.dtype == "float32" and list(config_lr.shape) == [1] and config_lr.stop_gradient


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: lr_schedule.piecewise_decay([1, 2], [0.1, 0.2]), "len\\(values\\) - len\\(boundaries\\) should be 1"),
        (lambda: lr_schedule.piecewise_decay([5, 2], [0.1, 0.2, 0.3]), "boundaries must be ascending"),
        (lambda: lr_schedule.exponential_decay(0.1, 0, 0.5), "decay_steps=0 must be > 0"),
        (lambda: lr_schedule.cosine_decay(0.1, 10, 0), "epochs=0 must be > 0"),
        (lambda: lr_schedule.linear_lr_warmup(0.1, -1, 0.0, 0.1), "warmup_steps=-1 must be > 0"),
        (lambda: L.switch_schedule([1, 2], [0.1, 0.2]), "one more value than boundaries"),
        (lambda: L.switch_schedule([5, 2], [0.1, 0.2, 0.3]), "boundaries must be ascending"),
    ],
)
def test_bad_arguments_of_a_config_schedule_are_named(make, message):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(PeError, match=message):
            make()


@pytest.mark.parametrize(
    "make, error, message",
    [
        (
            lambda: L.piecewise_decay([1, 2], [0.1, 0.2]),
            ValueError,
            "len\\(values\\) - len\\(boundaries\\) should be 1",
        ),
        (lambda: L.exponential_decay(0.1, 0, 0.5), ZeroDivisionError, "exponential_decay: decay_steps is 0"),
        (lambda: L.cosine_decay(0.1, 10, 0), ZeroDivisionError, "cosine_decay: epochs is 0"),
        (lambda: L.cosine_decay(1, 10, 2), TypeError, "learning_rate"),
    ],
)
def test_bad_arguments_of_fluids_schedules_raise_what_fluid_raises(make, error, message):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(error, match=message):
            make()
