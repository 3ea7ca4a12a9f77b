"""CUDA twins of kernels/cpu/optimizer_schedules.py: the step counter (increment, one launch), the
learning-rate schedules (host math, as on the CPU) and ModelAverage's running sums (average_accumulates:
the counters host math, the sums one launch). optimizer.py, where the registry looks for them, imports
them."""

import numpy as np
from numba import cuda

from ...shapes.optimizer import average_counters
from . import runtime as rt
from ._elementwise import Unary, scalar_arg
from ._launch import flat, grid
from .launcher import jit_kernel


_increment = Unary(cuda.jit(device=True, inline=True)(lambda x, s, q: x + s))


def increment(ins, attrs):
    x = ins["X"]
    return {"Out": _increment(x, scalar_arg(x.dtype, attrs["step"]))}


def lr_schedule(ins, attrs, cpu_lr_schedule):
    host = {k: rt.to_host(v) for k, v in ins.items()}
    return {"Out": rt.to_device(cpu_lr_schedule(host, attrs)["Out"])}


@jit_kernel
def _average_accumulates(p, s1, s2, s3, fold, restart, s1_out, s2_out, s3_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < p.size:
        a = s1[i] + p[i]
        b = s2[i]
        c = s3[i]
        if fold:
            b = b + a
            a = 0.0
        if restart:
            c = a + b
            a = 0.0
            b = 0.0
        s1_out[i] = a
        s2_out[i] = b
        s3_out[i] = c
        i += step


def average_accumulates(ins, attrs):
    """The counters are host math (read back as Fluid's GPU kernel reads them), the sums one launch."""
    counts = {k: rt.to_host(ins[k]) for k in ("in_num_updates", "in_num_accumulates", "in_old_num_accumulates")}
    updates, accumulates, old, fold, restart = average_counters(counts, attrs)
    p = ins["param"]
    outs = [rt.empty(ins[k].shape, ins[k].dtype) for k in ("in_sum_1", "in_sum_2", "in_sum_3")]
    if p.size:
        _average_accumulates[grid(p.size)](
            flat(p),
            flat(ins["in_sum_1"]),
            flat(ins["in_sum_2"]),
            flat(ins["in_sum_3"]),
            fold,
            restart,
            *(flat(o) for o in outs),
        )
    counters = [rt.to_device(np.array([v], dtype=np.int64)) for v in (accumulates, old, updates)]
    return {
        "out_sum_1": outs[0],
        "out_sum_2": outs[1],
        "out_sum_3": outs[2],
        "out_num_accumulates": counters[0],
        "out_old_num_accumulates": counters[1],
        "out_num_updates": counters[2],
    }
