"""Kernels of the optimizer family that update no parameter from its gradient: the step counter
(increment), the learning-rate schedules (lr_schedule: host math from the step) and ModelAverage's
running sums (average_accumulates). optimizer.py, where the registry looks for them, imports them. All three are
structured kernels (meta rules: shapes/optimizer.py): increment's "add" and lr_schedule's "fill" write into the
buffers they are handed, average_accumulates' "numpy" is fresh (kernels/structured.fresh_kernel)."""

import numpy as np

from ...shapes.optimizer import average_accumulates_meta, average_counters, increment_meta, lr_schedule_meta
from ..structured import adapter, fresh_kernel
from ...base.errors import PeError
from . import _replicas
from .launches import Launch, by_variant, flat, one
from .runtime.loops import lazy, loop_or


# -- the step counter and the learning-rate schedules ------------------------------------------------------

_elementwise_loops, _schedule_loops = lazy("_elementwise_loops"), lazy("_schedule_loops")
COUNTED = {np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)}  # counters increment launches


def _increment_add(ins, outs, attrs, meta):
    x = ins["X"]
    np.add(x, x.dtype.type(attrs["step"]), out=outs["Out"])


def increment_launches(op, table, meta):
    """A planned step's launch of "add" over a counter it advances in place (Out names X: a step counter): the
    scale loop's X * 1 + step in X's dtype, the bits of numpy's add; None for another Out (a Python launch)."""
    x = one(op, "X")
    if x is None or one(op, "Out", "outputs") != x or x not in table or table[x][1] not in COUNTED:
        return None
    t = table[x][1].type
    args = [flat(table, x), ("const", t(1)), ("const", t(op.attrs["step"])), ("const", True), flat(table, x)]
    return [Launch(_elementwise_loops().scale, args, updates=[x])]


# increment is a structured kernel: its meta rule (pe_cli/shapes/optimizer.py) and this out-kernel; ``increment``
# the two as a kernel, for the callers that run one by name
INCREMENT = by_variant("increment_out", increment_launches, add=_increment_add)
increment = adapter(increment_meta, INCREMENT, "increment")

KINDS = ("exponential", "natural_exp", "inverse_time", "polynomial", "piecewise", "cosine", "noam", "linear_warmup")
PARAMS = ("decay_steps", "decay_rate", "staircase", "end_learning_rate", "power", "cycle", "step_each_epoch", "epochs")
PARAMS += ("d_model", "warmup_steps", "start_lr", "end_lr")


def _schedule_args(attrs):
    """(kind's index, the attributes as float64 in PARAMS' order, boundaries, values): the loop's arguments."""
    params = np.array([float(attrs[name]) for name in PARAMS], dtype=np.float64)
    boundaries = np.array(attrs["boundaries"] or (), dtype=np.float64)
    values = np.array(attrs["values"] or (0.0,), dtype=np.float64)
    return KINDS.index(attrs["kind"]), params, boundaries, values


def _refused(attrs):
    return PeError(
        f"lr_schedule ({attrs['kind']}): the rate is no real number at this step (a negative number to a "
        "fractional power, zero to a negative one, or a division by zero); check the schedule's attributes"
    )


def _lr_schedule(ins, outs, attrs, meta):
    """lr_schedule's "fill": the rate at Step, written into Out (float32 [1]): the loop of a planned step
    (its replica while it compiles, the same bits)."""
    lr = ins.get("LearningRate")
    base = float(np.asarray(lr).reshape(-1)[0]) if lr is not None else float(attrs["learning_rate"])
    args = (np.asarray(ins["Step"]).reshape(-1), base, outs["Out"].reshape(-1), *_schedule_args(attrs))
    if loop_or(_replicas.lr_rate, _schedule_loops().lr_rate, *args)(*args) >= 0:
        raise _refused(attrs)


def lr_schedule_launches(op, table, meta):
    """A planned step's launch of "fill": the loop over Step, LearningRate's first value (float64) or the
    attribute, into Out; checked (a rate that is no real number: the op run op by op says so)."""
    step, lr, out = one(op, "Step"), one(op, "LearningRate"), one(op, "Out", "outputs")
    if step is None or out is None or step not in table or (op.inputs.get("LearningRate") and lr is None):
        return None
    base = ("const", float(op.attrs["learning_rate"])) if lr is None else ("first", lr, np.dtype(np.float64))
    kind, params, boundaries, values = _schedule_args(op.attrs)
    args = [flat(table, step), base, flat(table, out), ("const", kind)]
    args += [("array", params), ("array", boundaries), ("array", values)]
    return [Launch(_schedule_loops().lr_rate, args, writes=[out], checked=True)]


LR_SCHEDULE = by_variant("lr_schedule_out", lr_schedule_launches, fill=_lr_schedule)
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
