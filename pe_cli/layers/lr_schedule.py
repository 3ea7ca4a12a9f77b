"""pe's learning-rate schedules, one ``lr_schedule`` op each: what a model config's ``learning_rate:
{type: ...}`` builds (pe_cli/config/registries.py), with the formulas and the step counter of Fluid's
(``fluid.layers``' schedules are Fluid's own graphs of ops: learning_rate_scheduler.py). One op per
step, where Fluid's take 5 to 20; a program holding one runs on pe only (pe's saves before fluid.layers
built Fluid's may hold it).

Each program gets one persistable int64 counter ``@LR_DECAY_COUNTER@``, set to ``begin - 1`` by the
startup program and advanced by an ``increment`` op (role LRSched) put first in the main program, so
the first run sees step ``begin`` (0 for every schedule but noam_decay, which starts at 1). A schedule
is one ``lr_schedule`` op (role LRSched) that reads the counter and writes a float32 [1] variable;
pass that variable as an optimizer's ``learning_rate``. The formulas, with ``step`` the counter:

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
- switch_schedule:    values[i] for the first boundaries[i] > step, else values[-1], where a value is a
  number or another schedule's variable; built with ``Switch`` (a ``conditional_block`` per piece), as
  Fluid builds piecewise_decay. A schedule piece counts steps from 0, not from its boundary.
"""

import numbers

from ..base.errors import PeError
from ..framework import OpRole, default_main_program, default_startup_program, unique_name
from ..framework.variable import Variable
from .control_flow import Switch
from .logic import less_than
from .creation import assign, create_global_var, fill_constant

__all__ = [
    "exponential_decay",
    "natural_exp_decay",
    "inverse_time_decay",
    "polynomial_decay",
    "piecewise_decay",
    "cosine_decay",
    "noam_decay",
    "linear_lr_warmup",
    "switch_schedule",
    "autoincreased_step_counter",
]

LR_COUNTER_NAME = "@LR_DECAY_COUNTER@"


def autoincreased_step_counter(counter_name=None, begin=1, step=1):
    """A persistable int64 [1] counter advanced by ``step`` at the start of every run of the main
    program, starting from ``begin - 1`` as Fluid 1.8's: the first run reads ``begin`` (``begin - 1 +
    step`` when step is not 1). Created once per program and name."""
    counter_name = counter_name or "@STEP_COUNTER@"
    program = default_main_program()
    block = program.global_block()
    if block.has_var(counter_name):
        return block.var(counter_name)
    counter = block.create_var(name=counter_name, shape=[1], dtype="int64", persistable=True, stop_gradient=True)
    sblock = default_startup_program().global_block()
    svar = sblock.create_var(name=counter_name, shape=[1], dtype="int64", persistable=True)
    sblock.append_op("fill_constant", {}, {"Out": [svar]}, {"shape": [1], "dtype": "int64", "value": float(begin - 1)})
    block._prepend_op("increment", {"X": [counter]}, {"Out": [counter]}, {"step": float(step)}, role=OpRole.LRSched)
    return counter


def _decay_step_counter(begin=0):
    return autoincreased_step_counter(LR_COUNTER_NAME, begin=begin, step=1)


def _number(fn, name, value, positive=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}: {name} must be a number, got {value!r}")
    if positive and not value > 0:
        raise PeError(f"{fn}: {name}={value} must be > 0")
    return float(value)


def _schedule(fn, kind, learning_rate, begin=0, **attrs):
    """Appends the counter (once) and one ``lr_schedule`` op; returns its float32 [1] output."""
    program = default_main_program()
    inputs = {}
    if isinstance(learning_rate, Variable):
        inputs["LearningRate"] = [learning_rate]
        base = 1.0
    else:
        base = _number(fn, "learning_rate", learning_rate)
    with program._lr_schedule_guard():
        counter = _decay_step_counter(begin)
        inputs["Step"] = [counter]
        block = program.global_block()
        out = block.create_var(
            name=unique_name.generate("learning_rate"), shape=[1], dtype="float32", stop_gradient=True
        )
        block.append_op("lr_schedule", inputs, {"Out": [out]}, dict(attrs, kind=kind, learning_rate=base))
    return out


def exponential_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    fn = "exponential_decay"
    return _schedule(
        fn,
        "exponential",
        learning_rate,
        decay_steps=_number(fn, "decay_steps", decay_steps, True),
        decay_rate=_number(fn, "decay_rate", decay_rate),
        staircase=bool(staircase),
    )


def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    fn = "natural_exp_decay"
    return _schedule(
        fn,
        "natural_exp",
        learning_rate,
        decay_steps=_number(fn, "decay_steps", decay_steps, True),
        decay_rate=_number(fn, "decay_rate", decay_rate),
        staircase=bool(staircase),
    )


def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    fn = "inverse_time_decay"
    return _schedule(
        fn,
        "inverse_time",
        learning_rate,
        decay_steps=_number(fn, "decay_steps", decay_steps, True),
        decay_rate=_number(fn, "decay_rate", decay_rate),
        staircase=bool(staircase),
    )


def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False):
    fn = "polynomial_decay"
    return _schedule(
        fn,
        "polynomial",
        learning_rate,
        decay_steps=_number(fn, "decay_steps", decay_steps, True),
        end_learning_rate=_number(fn, "end_learning_rate", end_learning_rate),
        power=_number(fn, "power", power),
        cycle=bool(cycle),
    )


def piecewise_decay(boundaries, values):
    fn = "piecewise_decay"
    boundaries, values = list(boundaries), list(values)
    if len(values) - len(boundaries) != 1:
        raise PeError(
            f"{fn}: len(values) - len(boundaries) should be 1, got {len(values)} values and "
            f"{len(boundaries)} boundaries"
        )
    boundaries = [_number(fn, "boundaries", b) for b in boundaries]
    if any(b > a for b, a in zip(boundaries, boundaries[1:])):
        raise PeError(f"{fn}: boundaries must be ascending, got {boundaries}")
    return _schedule(fn, "piecewise", 1.0, boundaries=boundaries, values=[_number(fn, "values", v) for v in values])


def cosine_decay(learning_rate, step_each_epoch, epochs):
    fn = "cosine_decay"
    return _schedule(
        fn,
        "cosine",
        learning_rate,
        step_each_epoch=_number(fn, "step_each_epoch", step_each_epoch, True),
        epochs=_number(fn, "epochs", epochs, True),
    )


def noam_decay(d_model, warmup_steps, learning_rate=1.0):
    fn = "noam_decay"
    return _schedule(
        fn,
        "noam",
        learning_rate,
        begin=1,
        d_model=_number(fn, "d_model", d_model, True),
        warmup_steps=_number(fn, "warmup_steps", warmup_steps, True),
    )


def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr):
    fn = "linear_lr_warmup"
    return _schedule(
        fn,
        "linear_warmup",
        learning_rate,
        warmup_steps=_number(fn, "warmup_steps", warmup_steps, True),
        start_lr=_number(fn, "start_lr", start_lr),
        end_lr=_number(fn, "end_lr", end_lr),
    )


def switch_schedule(boundaries, values):
    """Piecewise by step, each piece a number or a schedule (e.g. linear_lr_warmup for the first
    boundary, then cosine_decay): a ``Switch`` over the step counter assigns the piece that holds."""
    fn = "switch_schedule"
    boundaries, values = list(boundaries), list(values)
    if len(values) - len(boundaries) != 1:
        raise PeError(
            f"{fn}: give one more value than boundaries, got {len(values)} values and {len(boundaries)} boundaries"
        )
    boundaries = [_number(fn, "boundaries", b) for b in boundaries]
    if any(b > a for b, a in zip(boundaries, boundaries[1:])):
        raise PeError(f"{fn}: boundaries must be ascending, got {boundaries}")
    pieces = [v if isinstance(v, Variable) else _number(fn, "values", v) for v in values]
    program = default_main_program()
    with program._lr_schedule_guard():
        step = _decay_step_counter()
        lr = create_global_var([1], 0.0, "float32", persistable=True, name=unique_name.generate("learning_rate"))
        with Switch() as switch:
            for boundary, piece in zip(boundaries, pieces):
                with switch.case(less_than(step, fill_constant([1], "int64", boundary))):
                    _assign_piece(piece, lr)
            with switch.default():
                _assign_piece(pieces[-1], lr)
    return lr


def _assign_piece(piece, lr):
    if isinstance(piece, Variable):
        assign(piece, lr)
    else:
        fill_constant([1], "float32", piece, out=lr)
