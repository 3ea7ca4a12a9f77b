"""Fluid 1.8's ``layers.learning_rate_scheduler``: learning-rate schedules driven by the step counter
``@LR_DECAY_COUNTER@`` (a persistable int64 [1] variable, set to ``begin - 1`` by the startup program
and advanced by an ``increment`` op put first in the main program; pe_cli/layers/lr_schedule.py).

Each schedule is built as Fluid 1.8.5 builds it, from the same ops in the same order (role LRSched):
the counter cast to float32, then ``scale``, elementwise, ``floor`` / ``cos`` / ``exp`` ops and, for
piecewise_decay, linear_lr_warmup and polynomial_decay's ``cycle``, a ``Switch``; the result is a
float32 [1] variable to pass as an optimizer's ``learning_rate``. So a program pe saves with one
runs in Fluid, and the rates are Fluid's, step by step (tests/fluid/test_control_flow_oracle.py).
With ``step`` the counter (0 at the first run; noam_decay's starts at 1):

- exponential_decay:  lr * decay_rate ^ (step / decay_steps)        (staircase: floor of the ratio)
- natural_exp_decay:  lr * exp(-decay_rate * (step / decay_steps))  (staircase: floor of the ratio)
- inverse_time_decay: lr / (1 + decay_rate * (step / decay_steps))  (staircase: floor of the ratio)
- polynomial_decay:   (lr - end_lr) * (1 - min(step, decay_steps) / decay_steps) ^ power + end_lr;
  with ``cycle`` decay_steps becomes decay_steps * ceil(step / decay_steps) (1 at step 0)
- piecewise_decay:    values[i] for the first boundaries[i] > step, else values[-1]
- cosine_decay:       lr * 0.5 * (cos(floor(step / step_each_epoch) * pi / epochs) + 1)
- noam_decay:         lr * d_model ^ -0.5 * min(step ^ -0.5, warmup_steps ^ -1.5 * step)
- linear_lr_warmup:   start_lr + (end_lr - start_lr) * step / warmup_steps while step < warmup_steps,
  then ``learning_rate`` (a float or another schedule's variable)

A model config's schedules (and ``switch_schedule``, pe's) are lr_schedule.py's one-op forms."""

import math

from ..framework import default_main_program
from ..framework.variable import Variable
from .activation import ceil, cos, exp, floor
from .checks import check_type, fluid_checks
from .control_flow import Switch
from .creation import assign, create_global_var, fill_constant
from .elementwise import elementwise_min
from .logic import equal
from .lr_schedule import LR_COUNTER_NAME, autoincreased_step_counter, switch_schedule  # noqa: F401
from .manipulation import cast

__all__ = [
    "exponential_decay",
    "natural_exp_decay",
    "inverse_time_decay",
    "polynomial_decay",
    "piecewise_decay",
    "noam_decay",
    "cosine_decay",
    "linear_lr_warmup",
]


def _decay_step_counter(begin=0):
    """The counter as float32, cast where the schedule is built (Fluid's)."""
    return cast(autoincreased_step_counter(LR_COUNTER_NAME, begin=begin, step=1), "float32")


def _divide(what, fn, x, by):
    if not isinstance(by, Variable) and by == 0:  # (Fluid's float division by zero, named)
        raise ZeroDivisionError(f"{fn}: {what} is 0; the schedule divides by it")
    return x / by


def noam_decay(d_model, warmup_steps, learning_rate=1.0):
    with default_main_program()._lr_schedule_guard():
        global_step = _decay_step_counter(1)
        a = global_step**-0.5
        b = (warmup_steps**-1.5) * global_step
        return learning_rate * (d_model**-0.5) * elementwise_min(a, b)


def _ratio(fn, global_step, decay_steps, staircase):
    div_res = _divide("decay_steps", fn, global_step, decay_steps)
    return floor(div_res) if staircase else div_res


def exponential_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    with default_main_program()._lr_schedule_guard():
        div_res = _ratio("exponential_decay", _decay_step_counter(), decay_steps, staircase)
        return learning_rate * (decay_rate**div_res)


def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    with default_main_program()._lr_schedule_guard():
        div_res = _ratio("natural_exp_decay", _decay_step_counter(), decay_steps, staircase)
        return learning_rate * exp(-1 * decay_rate * div_res)


def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    with default_main_program()._lr_schedule_guard():
        div_res = _ratio("inverse_time_decay", _decay_step_counter(), decay_steps, staircase)
        return learning_rate / (1 + decay_rate * div_res)


def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False):
    with default_main_program()._lr_schedule_guard():
        global_step = _decay_step_counter()
        if cycle:
            div_res = ceil(_divide("decay_steps", "polynomial_decay", global_step, decay_steps))
            zero_var = fill_constant(shape=[1], dtype="float32", value=0.0)
            one_var = fill_constant(shape=[1], dtype="float32", value=1.0)
            with Switch() as switch:
                with switch.case(equal(global_step, zero_var)):
                    assign(input=one_var, output=div_res)
            decay_steps = decay_steps * div_res
        else:
            decay_steps_var = fill_constant(shape=[1], dtype="float32", value=float(decay_steps))
            global_step = elementwise_min(x=global_step, y=decay_steps_var)
        ratio = _divide("decay_steps", "polynomial_decay", global_step, decay_steps)
        return (learning_rate - end_learning_rate) * ((1 - ratio) ** power) + end_learning_rate


def piecewise_decay(boundaries, values):
    with default_main_program()._lr_schedule_guard():
        if len(values) - len(boundaries) != 1:
            raise ValueError("len(values) - len(boundaries) should be 1")
        global_step = _decay_step_counter()
        lr = create_global_var(shape=[1], value=0.0, dtype="float32", persistable=True, name="learning_rate")
        with Switch() as switch:
            for boundary, value in zip(boundaries, values):
                boundary_val = fill_constant(shape=[1], dtype="float32", value=float(boundary), force_cpu=True)
                value_var = fill_constant(shape=[1], dtype="float32", value=float(value))
                with switch.case(global_step < boundary_val):
                    assign(value_var, lr)
            last_value_var = fill_constant(shape=[1], dtype="float32", value=float(values[-1]))
            with switch.default():
                assign(last_value_var, lr)
        return lr


@fluid_checks("cosine_decay", learning_rate=(float, Variable))
def cosine_decay(learning_rate, step_each_epoch, epochs):
    check_type(learning_rate, "learning_rate", (float, Variable), "cosine_decay")
    with default_main_program()._lr_schedule_guard():
        global_step = _decay_step_counter()
        cur_epoch = floor(_divide("step_each_epoch", "cosine_decay", global_step, step_each_epoch))
        return learning_rate * 0.5 * (cos(_divide("epochs", "cosine_decay", cur_epoch * math.pi, epochs)) + 1)


def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr):
    dtype = learning_rate.dtype if isinstance(learning_rate, Variable) else "float32"
    linear_step = float(end_lr) - float(start_lr)
    with default_main_program()._lr_schedule_guard():
        lr = create_global_var(shape=[1], value=0.0, dtype=dtype, persistable=True, name="learning_rate_warmup")
        global_step = _decay_step_counter()
        with Switch() as switch:
            with switch.case(global_step < warmup_steps):
                ratio = _divide("warmup_steps", "linear_lr_warmup", global_step, float(warmup_steps))
                assign(start_lr + linear_step * ratio, lr)
            with switch.default():
                if not isinstance(learning_rate, Variable):
                    learning_rate = fill_constant(shape=[1], dtype=dtype, value=float(learning_rate))
                assign(learning_rate, lr)
        return lr
