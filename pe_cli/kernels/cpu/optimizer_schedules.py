"""Kernels of the optimizer family that update no parameter from its gradient: the step counter
(increment), the learning-rate schedules (lr_schedule: host math from the step) and ModelAverage's
running sums (average_accumulates). optimizer.py, where the registry looks for them, imports them. All three are
structured kernels (meta rules: shapes/optimizer.py): increment's "add" and lr_schedule's "fill" write into the
buffers they are handed, average_accumulates' "numpy" is fresh (kernels/structured.fresh_kernel)."""

import math

import numpy as np

from ...shapes.optimizer import average_accumulates_meta, average_counters, increment_meta, lr_schedule_meta
from ..structured import adapter, fresh_kernel
from .launches import by_variant


# -- learning-rate schedules --------------------------------------------------------------------


def _increment_add(ins, outs, attrs, meta):
    x = ins["X"]
    np.add(x, x.dtype.type(attrs["step"]), out=outs["Out"])


# increment is a structured kernel: its meta rule (pe_cli/shapes/optimizer.py) and this out-kernel; ``increment``
# the two as a kernel, for the callers that run one by name
INCREMENT = by_variant("increment_out", None, add=_increment_add)
increment = adapter(increment_meta, INCREMENT, "increment")


def schedule_value(kind, step, base, a):
    """The learning rate of schedule ``kind`` at ``step`` (float64 math), base rate ``base``."""
    if kind == "exponential":
        div = step / a["decay_steps"]
        return base * a["decay_rate"] ** (math.floor(div) if a["staircase"] else div)
    if kind == "natural_exp":
        div = step / a["decay_steps"]
        return base * math.exp(-a["decay_rate"] * (math.floor(div) if a["staircase"] else div))
    if kind == "inverse_time":
        div = step / a["decay_steps"]
        return base / (1.0 + a["decay_rate"] * (math.floor(div) if a["staircase"] else div))
    if kind == "polynomial":
        decay_steps = a["decay_steps"]
        if a["cycle"]:
            decay_steps = decay_steps * (math.ceil(step / decay_steps) if step > 0 else 1.0)
        else:
            step = min(step, decay_steps)
        end = a["end_learning_rate"]
        return (base - end) * (1.0 - step / decay_steps) ** a["power"] + end
    if kind == "piecewise":
        for boundary, value in zip(a["boundaries"], a["values"]):
            if step < boundary:
                return value
        return a["values"][-1]
    if kind == "cosine":
        epoch = math.floor(step / a["step_each_epoch"])
        return base * 0.5 * (math.cos(epoch * math.pi / a["epochs"]) + 1.0)
    if kind == "noam":
        return base * a["d_model"] ** -0.5 * min(step**-0.5 if step > 0 else math.inf, a["warmup_steps"] ** -1.5 * step)
    if kind == "linear_warmup":
        if step < a["warmup_steps"]:
            return a["start_lr"] + (a["end_lr"] - a["start_lr"]) * step / a["warmup_steps"]
        return base
    raise ValueError(f"unknown learning-rate schedule kind {kind!r}")


def _lr_schedule(ins, outs, attrs, meta):
    """lr_schedule's "fill": the rate at Step, written into Out (float32 [1])."""
    step = float(np.asarray(ins["Step"]).reshape(-1)[0])
    lr = ins.get("LearningRate")
    base = float(np.asarray(lr).reshape(-1)[0]) if lr is not None else float(attrs["learning_rate"])
    np.copyto(outs["Out"], schedule_value(attrs["kind"], step, base, attrs), casting="unsafe")


LR_SCHEDULE = _lr_schedule
lr_schedule = adapter(lr_schedule_meta, LR_SCHEDULE, "lr_schedule")


def _counter(value):
    return np.array([value], dtype=np.int64)


def _average_accumulates(ins, attrs):
    updates, accumulates, old, fold, restart = average_counters(ins, attrs)
    p, s1, s2, s3 = ins["param"], ins["in_sum_1"], ins["in_sum_2"], ins["in_sum_3"]
    s1 = (s1 + p).astype(s1.dtype, copy=False)
    if fold:
        s2, s1 = (s2 + s1).astype(s2.dtype, copy=False), np.zeros_like(s1)
    if restart:
        s3, s1, s2 = (s1 + s2).astype(s3.dtype, copy=False), np.zeros_like(s1), np.zeros_like(s2)
    return {
        "out_sum_1": s1,
        "out_sum_2": np.array(s2, copy=True),
        "out_sum_3": np.array(s3, copy=True),
        "out_num_accumulates": _counter(accumulates),
        "out_old_num_accumulates": _counter(old),
        "out_num_updates": _counter(updates),
    }


AVERAGE_ACCUMULATES = fresh_kernel(_average_accumulates, "average_accumulates_out")
average_accumulates = adapter(average_accumulates_meta, AVERAGE_ACCUMULATES, "average_accumulates")
