"""The results of ops/adamw.py's other ops for tools/op_case_bytes.py's ``adamw`` family: check_finite_and_unscale,
update_loss_scaling, merged_adam and pow2_decay_with_linear_warmup called through their CPU kernels
(``OpDef.kernel``) over dtypes (float16/32/64 values, int32/int64 counters), lists of values (empty ones too),
inf and NaN, attributes (stop_update, the step thresholds, warmup and total steps) and steps before, in and
after the warmup."""

import zlib

import numpy as np


def _values(key, shape, dtype):
    return np.random.default_rng(zlib.crc32(key.encode())).uniform(-3, 3, size=shape).astype(dtype)


def _run(results, record, direct, op, key, ins, attrs=None):
    from pe_cli.ops import registry

    o = registry.get(op)
    full = dict(o.default_attrs(), **(attrs or {}))
    record(results, f"adamw|{op}|{key}", lambda: _flat(direct(o, ins, full, None)))


def _flat(outs):
    """Each list output's values as slot[i] (and its length)."""
    flat = {}
    for slot, value in outs.items():
        if isinstance(value, list):
            flat[f"{slot}#"] = np.array(len(value))
            flat.update({f"{slot}[{i}]": v for i, v in enumerate(value)})
        else:
            flat[slot] = value
    return flat


def _scaling(results, record, direct):
    for dt in ("float32", "float64", "float16"):
        for shapes in (((3, 4), (5,)), ((0, 2),), ((2, 2), (1,), (3,))):
            for bad in (None, 0, 1):
                xs = [_values(f"{dt}|{shapes}|{i}", s, dt) for i, s in enumerate(shapes)]
                if bad is not None and bad < len(xs) and xs[bad].size:
                    xs[bad].reshape(-1)[0] = np.inf
                key = f"{dt}|{shapes}|{bad}"
                for sdt in dict.fromkeys(["float32", dt]):
                    scale = np.array([0.5], sdt)
                    _run(results, record, direct, "check_finite_and_unscale", f"{key}|{sdt}", {"X": xs, "Scale": scale})
                for found in (False, True):
                    for stop in (False, True):
                        for good, nbad, incr, decr in ((999, 0, 1000, 2), (3, 1, 1000, 2), (0, 0, 1, 1)):
                            for cdt in ("int32", "int64"):
                                ins = {
                                    "X": xs,
                                    "FoundInfinite": np.array([found]),
                                    "PrevLossScaling": np.array([32768.0], "float32"),
                                    "InGoodSteps": np.array([good], cdt),
                                    "InBadSteps": np.array([nbad], cdt),
                                }
                                attrs = {
                                    "stop_update": stop,
                                    "incr_every_n_steps": incr,
                                    "decr_every_n_nan_or_inf": decr,
                                    "incr_ratio": 2.0,
                                    "decr_ratio": 0.5,
                                }
                                k = f"{key}|{found}|{stop}|{good}|{nbad}|{incr}|{decr}|{cdt}"
                                _run(results, record, direct, "update_loss_scaling", k, ins, attrs)


def _merged(results, record, direct):
    for dt in ("float32", "float64"):
        for shapes in (((3, 4), (5,)), ((2,),), ((0, 3), (1,))):
            for lrs in (1, len(shapes)):
                ins = {slot: [] for slot in ("Param", "Grad", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")}
                for i, s in enumerate(shapes):
                    for slot in ("Param", "Grad", "Moment1", "Moment2"):
                        v = _values(f"merged|{dt}|{shapes}|{i}|{slot}", s, dt)
                        ins[slot].append(np.abs(v) if slot == "Moment2" else v)
                    ins["Beta1Pow"].append(np.array([0.9**3], dt))
                    ins["Beta2Pow"].append(np.array([0.999**3], dt))
                ins["LearningRate"] = [np.array([0.01 * (j + 1)], dt) for j in range(lrs)]
                for glob in (False, True):
                    key = f"{dt}|{shapes}|{lrs}|{glob}"
                    _run(results, record, direct, "merged_adam", key, ins, {"use_global_beta_pow": glob, "beta1": 0.8})


def _pow2(results, record, direct):
    for ldt in ("float32", "float64"):
        for sdt in ("int64", "int32"):
            for step in (0, 3, 9, 10, 15, 19, 20, 40):
                for warm, total in ((10, 20), (1, 2), (5, 5)):
                    ins = {"LearningRate": np.array([7.0], ldt), "Step": np.array([step], sdt)}
                    attrs = {"warmup_steps": warm, "total_steps": total, "base_lr": 0.1, "end_lr": 0.001}
                    key = f"{ldt}|{sdt}|{step}|{warm}|{total}"
                    _run(results, record, direct, "pow2_decay_with_linear_warmup", key, ins, attrs)


def adamw(results, record, direct):
    _scaling(results, record, direct)
    _merged(results, record, direct)
    _pow2(results, record, direct)
