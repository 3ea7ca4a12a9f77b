"""The optimizer family's rules, shared by the kernels of both devices: whether Fluid 1.8.5's sparse adam reads
the next step's powers, ModelAverage's counters."""

import numpy as np


def adam_reads_next_powers(ins, attrs):
    """Fluid 1.8.5's sparse update writes Beta1PowOut before it reads Beta1Pow: where they are one
    variable (its optimizer's: the output's value before the op is the input's array), it
    bias-corrects with the next step's powers (docs/COMPAT.md). Paddle 2.x's form (epsilon_scaled)
    uses the step's own."""
    return not attrs.get("epsilon_scaled") and ins.get("Beta1PowOut") is ins["Beta1Pow"]


MAX_NUM_ACCUMULATES = 16384  # Fluid's kMaxNumAccumulates: sum_1 moves into sum_2 this often


def average_counters(ins, attrs):
    """ModelAverage's counters after one more update, and what happens to the sums: (num_updates,
    num_accumulates, old_num_accumulates, fold: sum_1 moves into sum_2, restart: the window restarts
    with sum_3 = sum_1 + sum_2). Host math from the one-value inputs (host arrays)."""
    updates = int(np.asarray(ins["in_num_updates"]).reshape(-1)[0]) + 1
    accumulates = int(np.asarray(ins["in_num_accumulates"]).reshape(-1)[0]) + 1
    old = int(np.asarray(ins["in_old_num_accumulates"]).reshape(-1)[0])
    lo, hi = int(attrs["min_average_window"]), int(attrs["max_average_window"])
    if lo > hi:
        raise ValueError(f"average_accumulates: min_average_window {lo} exceeds max_average_window {hi}")
    fold = updates % MAX_NUM_ACCUMULATES == 0
    restart = accumulates >= lo and accumulates >= min(hi, updates * float(attrs["average_window"]))
    if restart:
        old, accumulates = accumulates, 0
    return updates, accumulates, old, fold, restart
