"""The results of lr_schedule, average_accumulates, dpsgd and dgc_momentum for tools/op_case_bytes.py's ``optimizer``
family, called through their CPU kernels (``OpDef.kernel``): each schedule kind at steps around its boundaries and
with or without LearningRate; ModelAverage's sums in float32/64 at the steps that fold sum_1 into sum_2 and restart
the window, and the windows it refuses; dpsgd's clipped and unclipped gradients with seeded noise; dgc_momentum
before any ramp-up, before and after its ramp-up step, nesterov or not, and one rank (refused)."""

import zlib

import numpy as np


def _values(key, shape, dtype):
    return np.random.default_rng(zlib.crc32(key.encode())).uniform(-3, 3, size=shape).astype(dtype)


def _run(results, record, direct, op, key, ins, attrs=None, seed=None):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    o = registry.get(op)
    full = dict(o.default_attrs(), **(attrs or {}))

    def call():
        return direct(o, ins, full, KernelContext(rng=None if seed is None else np.random.default_rng(seed)))

    record(results, f"optimizer|{op}|{key}", call)


_KINDS = {
    "exponential": {"decay_steps": 3.0, "decay_rate": 0.5},
    "natural_exp": {"decay_steps": 3.0, "decay_rate": 0.5},
    "inverse_time": {"decay_steps": 3.0, "decay_rate": 0.5},
    "polynomial": {"decay_steps": 5.0, "end_learning_rate": 0.01, "power": 2.0},
    "piecewise": {"boundaries": [2, 5], "values": [1.0, 0.5, 0.1]},
    "cosine": {"step_each_epoch": 2.0, "epochs": 5.0},
    "noam": {"d_model": 64.0, "warmup_steps": 4.0},
    "linear_warmup": {"warmup_steps": 4.0, "start_lr": 0.0, "end_lr": 0.1},
}


def _schedules(results, record, direct):
    for kind, attrs in _KINDS.items():
        for step in (0, 1, 3, 5, 7, 12):
            for flags in ({}, {"staircase": True, "cycle": True}):
                for lr in (None, np.array([0.3], "float32")):
                    ins = {"Step": np.array([step], "int64")}
                    if lr is not None:
                        ins["LearningRate"] = lr
                    key = f"{kind}|{step}|{flags}|{lr is None}"
                    _run(results, record, direct, "lr_schedule", key, ins, dict(attrs, kind=kind, **flags))


def _averages(results, record, direct):
    for dt in ("float32", "float64"):
        for shape in ((3, 4), (0,), (5,)):
            for updates, accumulates in ((0, 0), (16383, 7), (20, 9), (3, 1)):
                ins = {"param": _values(f"avg|{dt}|{shape}", shape, dt)}
                for i, n in enumerate(("sum_1", "sum_2", "sum_3")):
                    ins[f"in_{n}"] = _values(f"avg|{dt}|{shape}|{i}", shape, dt)
                ins["in_num_updates"] = np.array([updates], "int64")
                ins["in_num_accumulates"] = np.array([accumulates], "int64")
                ins["in_old_num_accumulates"] = np.array([4], "int64")
                for window, lo, hi in ((0.5, 10, 10000), (0.15, 2, 20), (1.0, 30, 10)):
                    attrs = {"average_window": window, "min_average_window": lo, "max_average_window": hi}
                    key = f"{dt}|{shape}|{updates}|{accumulates}|{window}|{lo}|{hi}"
                    _run(results, record, direct, "average_accumulates", key, ins, attrs)


def _dpsgd(results, record, direct):
    for dt in ("float32", "float64"):
        for shape in ((3, 4), (0,)):
            for clip, sigma in ((0.5, 0.0), (100.0, 1.0), (1.0, 2.5)):
                ins = {
                    "Param": _values(f"dp|{dt}|{shape}", shape, dt),
                    "Grad": _values(f"dp|{dt}|{shape}|g", shape, dt),
                    "LearningRate": np.array([0.1], dt),
                }
                attrs = {"clip": clip, "sigma": sigma, "batch_size": 4.0}
                _run(results, record, direct, "dpsgd", f"{dt}|{shape}|{clip}|{sigma}", ins, attrs, seed=7)


def _dgc(results, record, direct):
    for dt in ("float32", "float64"):
        for shape in ((3, 4), (6,)):
            for rampup, step, nranks in ((-1, 0, 2), (5, 2, 2), (5, 5, 4), (5, 9, 1), (0, 0, 2)):
                for nesterov in (False, True):
                    ins = {
                        "Param": _values(f"dgc|{dt}|{shape}", shape, dt),
                        "Grad": _values(f"dgc|{dt}|{shape}|g", shape, dt),
                        "Velocity": _values(f"dgc|{dt}|{shape}|v", shape, dt),
                        "LearningRate": np.array([0.1], dt),
                        "current_step": np.array([step], "float32"),
                        "nranks": np.array([nranks], "float32"),
                    }
                    attrs = {"rampup_begin_step": rampup, "mu": 0.9, "use_nesterov": nesterov}
                    key = f"{dt}|{shape}|{rampup}|{step}|{nranks}|{nesterov}"
                    _run(results, record, direct, "dgc_momentum", key, ins, attrs)


def schedules(results, record, direct):
    _schedules(results, record, direct)
    _averages(results, record, direct)
    _dpsgd(results, record, direct)
    _dgc(results, record, direct)
