"""Op cases for family optimizer: the update ops and the learning-rate schedule ops, each
against a plain numpy reference written from the formulas (not from the kernels)."""

import math

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(11)


def r(*shape, dtype="float64"):
    return rng.normal(size=shape).astype(dtype)


def pos(*shape, dtype="float64"):
    return rng.uniform(0.1, 2.0, size=shape).astype(dtype)


def lr(value, dtype="float64"):
    return np.array([value], dtype=dtype)


def _sgd(i, a):
    return {"ParamOut": i["Param"] - i["LearningRate"][0] * i["Grad"]}


def _momentum(i, a):
    v = a["mu"] * i["Velocity"] + i["Grad"]
    step = i["Grad"] + a["mu"] * v if a["use_nesterov"] else v
    return {"ParamOut": i["Param"] - i["LearningRate"][0] * step, "VelocityOut": v}


def _adam(i, a):
    b1, b2, eps = a["beta1"], a["beta2"], a["epsilon"]
    b1p, b2p = i["Beta1Pow"][0], i["Beta2Pow"][0]
    m1 = b1 * i["Moment1"] + (1 - b1) * i["Grad"]
    m2 = b2 * i["Moment2"] + (1 - b2) * i["Grad"] ** 2
    # bias correction folded into the step size; epsilon unscaled as Fluid 1.8's kernel adds it, or
    # (epsilon_scaled) times sqrt(1 - beta2^t) as Paddle 2.x's: the textbook m_hat / (sqrt(v_hat) + eps)
    lr_t = i["LearningRate"][0] * np.sqrt(1 - b2p) / (1 - b1p)
    p = i["Param"] - lr_t * m1 / (np.sqrt(m2) + (eps * np.sqrt(1 - b2p) if a.get("epsilon_scaled") else eps))
    return {
        "ParamOut": p,
        "Moment1Out": m1,
        "Moment2Out": m2,
        "Beta1PowOut": i["Beta1Pow"] * b1,
        "Beta2PowOut": i["Beta2Pow"] * b2,
    }


def _dpsgd_no_noise(i, a):
    """sigma = 0: the gradient scaled to L2 norm at most clip, then an SGD step."""
    g = i["Grad"]
    scale = max(1.0, np.sqrt(np.sum(g**2)) / a["clip"])
    return {"ParamOut": i["Param"] - i["LearningRate"][0] * g / scale}


def _check_dpsgd_noise(outs, inputs):
    """One noise value per op and step: ParamOut - (Param - lr * Grad / scale) is the same in every
    element, -lr * noise / batch_size, and not 0."""
    g, lr_value = inputs["Grad"], inputs["LearningRate"][0]
    scale = max(1.0, np.sqrt(np.sum(g**2)) / 0.5)
    shift = outs["ParamOut"] - (inputs["Param"] - lr_value * g / scale)
    assert np.allclose(shift, shift.reshape(-1)[0]) and abs(shift.reshape(-1)[0]) > 1e-6


def _adagrad(i, a):
    m = i["Moment"] + i["Grad"] ** 2
    return {"ParamOut": i["Param"] - i["LearningRate"][0] * i["Grad"] / (np.sqrt(m) + a["epsilon"]), "MomentOut": m}


def _rmsprop(i, a):
    rho, eps, mu = a["decay"], a["epsilon"], a["momentum"]
    g = i["Grad"]
    ms = rho * i["MeanSquare"] + (1 - rho) * g**2
    out = {"MeanSquareOut": ms}
    denom = ms + eps
    if a["centered"]:
        mg = rho * i["MeanGrad"] + (1 - rho) * g
        denom = denom - mg**2
        out["MeanGradOut"] = mg
    mom = mu * i["Moment"] + i["LearningRate"][0] * g / np.sqrt(denom)
    out.update({"MomentOut": mom, "ParamOut": i["Param"] - mom})
    return out


def _adamax(i, a):
    m = a["beta1"] * i["Moment"] + (1 - a["beta1"]) * i["Grad"]
    u = np.maximum(a["beta2"] * i["InfNorm"] + a["epsilon"], np.abs(i["Grad"]))
    step = i["LearningRate"][0] / (1 - i["Beta1Pow"][0])
    return {"ParamOut": i["Param"] - step * m / u, "MomentOut": m, "InfNormOut": u}


def _adadelta(i, a):
    rho, eps, g = a["rho"], a["epsilon"], i["Grad"]
    sg = rho * i["AvgSquaredGrad"] + (1 - rho) * g**2
    update = -np.sqrt((i["AvgSquaredUpdate"] + eps) / (sg + eps)) * g
    return {
        "ParamOut": i["Param"] + update,
        "AvgSquaredGradOut": sg,
        "AvgSquaredUpdateOut": rho * i["AvgSquaredUpdate"] + (1 - rho) * update**2,
    }


def _average_accumulates(i, a):
    """Fluid's op with its outputs on its input variables: the sums move in place, in this order."""
    updates, acc = int(i["in_num_updates"][0]) + 1, int(i["in_num_accumulates"][0]) + 1
    old = int(i["in_old_num_accumulates"][0])
    s1, s2, s3 = i["in_sum_1"] + i["param"], i["in_sum_2"].copy(), i["in_sum_3"].copy()
    if updates % 16384 == 0:
        s2, s1 = s2 + s1, np.zeros_like(s1)
    if acc >= a["min_average_window"] and acc >= min(a["max_average_window"], updates * a["average_window"]):
        s3, s1, s2 = s1 + s2, np.zeros_like(s1), np.zeros_like(s2)
        old, acc = acc, 0
    return {
        "out_sum_1": s1,
        "out_sum_2": s2,
        "out_sum_3": s3,
        "out_num_accumulates": np.array([acc]),
        "out_old_num_accumulates": np.array([old]),
        "out_num_updates": np.array([updates]),
    }


def _avg_case(name, updates, acc, old, attrs, dtype="float64"):
    count = lambda v: np.array([v], dtype="int64")  # noqa: E731
    return OpCase(
        "average_accumulates",
        {
            "param": r(3, 4, dtype=dtype),
            "in_sum_1": r(3, 4, dtype=dtype),
            "in_sum_2": r(3, 4, dtype=dtype),
            "in_sum_3": r(3, 4, dtype=dtype),
            "in_num_accumulates": count(acc),
            "in_old_num_accumulates": count(old),
            "in_num_updates": count(updates),
        },
        _average_accumulates,
        attrs=attrs,
        name=name,
        rtol=2e-6 if dtype == "float32" else 1e-6,
    )


def _decayed_adagrad(i, a):
    m = a["decay"] * i["Moment"] + (1 - a["decay"]) * i["Grad"] ** 2
    return {"ParamOut": i["Param"] - i["LearningRate"][0] * i["Grad"] / (np.sqrt(m) + a["epsilon"]), "MomentOut": m}


def _ftrl(i, a):
    l1, l2, c, lr_ = a["l1"] + 1e-10, a["l2"] + 1e-10, -a["lr_power"], i["LearningRate"][0]
    sq, g, p = i["SquaredAccumulator"], i["Grad"], i["Param"]
    n = sq + g**2
    lin = i["LinearAccumulator"] + g - (n**c - sq**c) / lr_ * p
    p_out = np.zeros_like(p)
    keep = np.abs(lin) > l1
    p_out[keep] = ((l1 * np.sign(lin) - lin) / (n**c / lr_ + 2 * l2))[keep]
    return {"ParamOut": p_out, "SquaredAccumOut": n, "LinearAccumOut": lin}


def _lamb(i, a):
    b1, b2 = a["beta1"], a["beta2"]
    m1 = b1 * i["Moment1"] + (1 - b1) * i["Grad"]
    m2 = b2 * i["Moment2"] + (1 - b2) * i["Grad"] ** 2
    # Fluid 1.8's lamb takes the moments as they are; bias_correction (Paddle 2.x's) divides by 1 - beta^t
    c1, c2 = (1 - i["Beta1Pow"][0], 1 - i["Beta2Pow"][0]) if a.get("bias_correction") else (1, 1)
    r = (m1 / c1) / (np.sqrt(m2 / c2) + a["epsilon"]) + a["weight_decay"] * i["Param"]
    p_norm, r_norm = np.linalg.norm(i["Param"]), np.linalg.norm(r)
    trust = p_norm / r_norm if p_norm > 0 and r_norm > 0 else 1.0
    return {
        "ParamOut": i["Param"] - i["LearningRate"][0] * trust * r,
        "Moment1Out": m1,
        "Moment2Out": m2,
        "Beta1PowOut": i["Beta1Pow"] * b1,
        "Beta2PowOut": i["Beta2Pow"] * b2,
    }


def _lars(i, a):
    p, g, decay = i["Param"], i["Grad"], a["lars_weight_decay"]
    p_norm, g_norm = np.linalg.norm(p), np.linalg.norm(g)
    rate = i["LearningRate"][0]
    if p_norm > 0 and g_norm > 0:
        rate = rate * a["lars_coeff"] * p_norm / (g_norm + decay * p_norm)
    v = a["mu"] * i["Velocity"] + rate * (g + decay * p)
    return {"ParamOut": p - v, "VelocityOut": v}


def _lr_case(kind, step, attrs, want, name, base_input=None):
    inputs = {"Step": np.array([step], dtype="int64")}
    if base_input is not None:
        inputs["LearningRate"] = np.array([base_input], dtype="float32")
    return OpCase(
        "lr_schedule",
        inputs,
        lambda i, a: {"Out": np.array([want], dtype="float32")},
        attrs=dict(attrs, kind=kind),
        name=name,
        rtol=1e-6,
    )


def _dgc_momentum(i, a):
    """Fluid's DGC update: the gradient (a sum over nranks trainers) divided by nranks, then
    momentum's update before step rampup_begin_step, sgd's from it on (Velocity kept)."""
    g = i["Grad"] / i["nranks"][0]
    if i["current_step"][0] < a["rampup_begin_step"]:
        out = _momentum(dict(i, Grad=g), a)
    else:
        out = dict(_sgd(dict(i, Grad=g), a), VelocityOut=i["Velocity"])
    return dict(out, Grad_out=g)


def _dgc_inputs(step, nranks=2.0):
    return {
        "Param": r(3, 4),
        "Grad": r(3, 4),
        "Velocity": r(3, 4),
        "LearningRate": lr(0.1),
        "current_step": lr(step),
        "nranks": lr(nranks),
    }


CASES = [
    OpCase(
        "dgc_momentum",
        _dgc_inputs(3.0),
        _dgc_momentum,
        attrs={"mu": 0.9, "rampup_begin_step": 10.0},
        name="dgc_momentum_before_rampup",
    ),
    OpCase(
        "dgc_momentum",
        _dgc_inputs(15.0, 4.0),
        _dgc_momentum,
        attrs={"mu": 0.9, "rampup_begin_step": 10.0},
        name="dgc_momentum_after_rampup",
    ),
    OpCase(
        "dgc_momentum",
        _dgc_inputs(3.0),
        lambda i, a: {"ParamOut": i["Param"], "VelocityOut": i["Velocity"], "Grad_out": i["Grad"]},
        attrs={"rampup_begin_step": -1.0},
        name="dgc_momentum_off",
    ),
    OpCase(
        "dpsgd",
        {"Param": r(3, 4), "Grad": 3 * r(3, 4), "LearningRate": lr(0.1)},
        _dpsgd_no_noise,
        attrs={"clip": 1.0, "batch_size": 4.0, "sigma": 0.0},
        name="dpsgd_clipped",
    ),
    OpCase(
        "dpsgd",
        {"Param": r(2, 3), "Grad": 0.01 * r(2, 3), "LearningRate": lr(0.1)},
        _dpsgd_no_noise,
        attrs={"clip": 10.0, "batch_size": 4.0, "sigma": 0.0},
        name="dpsgd_under_clip",
    ),
    OpCase(
        "dpsgd",
        {"Param": r(2, 3), "Grad": r(2, 3), "LearningRate": lr(0.1)},
        outputs=("ParamOut",),
        attrs={"clip": 0.5, "batch_size": 2.0, "sigma": 1.0, "seed": 3},
        check=_check_dpsgd_noise,
        name="dpsgd_noise",
    ),
    OpCase("sgd", {"Param": r(3, 4), "Grad": r(3, 4), "LearningRate": lr(0.1)}, _sgd),
    OpCase(
        "sgd",
        {"Param": r(5, dtype="float32"), "Grad": r(5, dtype="float32"), "LearningRate": lr(0.5, "float32")},
        _sgd,
        name="sgd_float32",
        rtol=1e-6,
    ),
    OpCase(
        "adam",
        {
            "Param": r(3, 4),
            "Grad": r(3, 4),
            "LearningRate": lr(0.01),
            "Moment1": r(3, 4),
            "Moment2": pos(3, 4),
            "Beta1Pow": lr(0.9**3),
            "Beta2Pow": lr(0.999**3),
        },
        _adam,
        attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
    ),
    OpCase(
        "adam",
        {
            "Param": r(6),
            "Grad": r(6),
            "LearningRate": lr(0.1),
            "Moment1": np.zeros(6),
            "Moment2": np.zeros(6),
            "Beta1Pow": lr(0.5),
            "Beta2Pow": lr(0.7),
        },
        _adam,
        attrs={"beta1": 0.5, "beta2": 0.7, "epsilon": 1e-3},
        name="adam_first_step",
    ),
    OpCase(
        "adam",
        {
            "Param": r(6),
            "Grad": r(6),
            "LearningRate": lr(0.1),
            "Moment1": r(6),
            "Moment2": pos(6),
            "Beta1Pow": lr(0.5),
            "Beta2Pow": lr(0.7),
        },
        _adam,
        attrs={"beta1": 0.5, "beta2": 0.7, "epsilon": 0.1},
        name="adam_fluid_epsilon",
    ),
    OpCase(
        "adam",
        {
            "Param": r(6),
            "Grad": r(6),
            "LearningRate": lr(0.1),
            "Moment1": r(6),
            "Moment2": pos(6),
            "Beta1Pow": lr(0.5),
            "Beta2Pow": lr(0.7),
        },
        _adam,
        attrs={"beta1": 0.5, "beta2": 0.7, "epsilon": 0.1, "epsilon_scaled": True},
        name="adam_paddle2_epsilon",
    ),
    OpCase(
        "adam",
        {
            "Param": r(2, 5, dtype="float32"),
            "Grad": r(2, 5, dtype="float32"),
            "LearningRate": lr(0.01, "float32"),
            "Moment1": r(2, 5, dtype="float32"),
            "Moment2": pos(2, 5, dtype="float32"),
            "Beta1Pow": lr(0.81, "float32"),
            "Beta2Pow": lr(0.998, "float32"),
        },
        _adam,
        name="adam_float32",
        rtol=2e-5,
        atol=1e-6,
    ),
    OpCase(
        "adagrad",
        {"Param": r(3, 4), "Grad": r(3, 4), "Moment": pos(3, 4), "LearningRate": lr(0.1)},
        _adagrad,
        attrs={"epsilon": 1e-6},
    ),
    OpCase(
        "adagrad",
        {"Param": r(4), "Grad": r(4), "Moment": np.zeros(4), "LearningRate": lr(0.3)},
        _adagrad,
        attrs={"epsilon": 0.1},
        name="adagrad_zero_moment",
    ),
    OpCase(
        "rmsprop",
        {"Param": r(3, 4), "Grad": r(3, 4), "MeanSquare": pos(3, 4), "Moment": r(3, 4), "LearningRate": lr(0.01)},
        _rmsprop,
        attrs={"decay": 0.95, "epsilon": 1e-6, "momentum": 0.0},
        outputs=("ParamOut", "MomentOut", "MeanSquareOut"),
    ),
    OpCase(
        "rmsprop",
        {
            "Param": r(3, 4),
            "Grad": r(3, 4),
            "MeanSquare": pos(3, 4) + 1.0,
            "MeanGrad": rng.uniform(-0.3, 0.3, size=(3, 4)),
            "Moment": r(3, 4),
            "LearningRate": lr(0.01),
        },
        _rmsprop,
        attrs={"decay": 0.9, "epsilon": 1e-6, "momentum": 0.5, "centered": True},
        name="rmsprop_centered_momentum",
    ),
    OpCase(
        "adamax",
        {
            "Param": r(3, 4),
            "Grad": r(3, 4),
            "LearningRate": lr(0.01),
            "Moment": r(3, 4),
            "InfNorm": pos(3, 4),
            "Beta1Pow": lr(0.9**2),
        },
        _adamax,
        attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
    ),
    OpCase(
        "adamax",
        {
            "Param": r(2, 5, dtype="float32"),
            "Grad": r(2, 5, dtype="float32"),
            "LearningRate": lr(0.1, "float32"),
            "Moment": np.zeros((2, 5), "float32"),
            "InfNorm": np.zeros((2, 5), "float32"),
            "Beta1Pow": lr(0.5, "float32"),
        },
        _adamax,
        attrs={"beta1": 0.5, "beta2": 0.75, "epsilon": 1e-3},
        name="adamax_first_step_float32",
        rtol=2e-5,
        atol=1e-6,
    ),
    OpCase(
        "adadelta",
        {"Param": r(3, 4), "Grad": r(3, 4), "AvgSquaredGrad": pos(3, 4), "AvgSquaredUpdate": pos(3, 4)},
        _adadelta,
        attrs={"rho": 0.95, "epsilon": 1e-6},
    ),
    OpCase(
        "adadelta",
        {"Param": r(5), "Grad": r(5), "AvgSquaredGrad": np.zeros(5), "AvgSquaredUpdate": np.zeros(5)},
        _adadelta,
        attrs={"rho": 0.5, "epsilon": 1e-2},
        name="adadelta_first_step",
    ),
    OpCase(
        "decayed_adagrad",
        {"Param": r(3, 4), "Grad": r(3, 4), "Moment": pos(3, 4), "LearningRate": lr(0.1)},
        _decayed_adagrad,
        attrs={"decay": 0.9, "epsilon": 1e-6},
    ),
    OpCase(
        "decayed_adagrad",
        {
            "Param": r(4, dtype="float32"),
            "Grad": r(4, dtype="float32"),
            "Moment": np.zeros(4, "float32"),
            "LearningRate": lr(0.25, "float32"),
        },
        _decayed_adagrad,
        attrs={"decay": 0.5, "epsilon": 0.1},
        name="decayed_adagrad_float32",
        rtol=1e-5,
    ),
    OpCase(
        "ftrl",
        {
            "Param": r(3, 4),
            "Grad": r(3, 4),
            "LearningRate": lr(0.1),
            "SquaredAccumulator": pos(3, 4),
            "LinearAccumulator": r(3, 4),
        },
        _ftrl,
        attrs={"l1": 0.5, "l2": 0.1},
    ),
    OpCase(
        "ftrl",
        {
            "Param": r(3, 4),
            "Grad": r(3, 4),
            "LearningRate": lr(0.1),
            "SquaredAccumulator": pos(3, 4),
            "LinearAccumulator": r(3, 4),
        },
        _ftrl,
        attrs={"l1": 0.0, "l2": 0.0, "lr_power": -0.25},
        name="ftrl_lr_power",
    ),
    OpCase(
        "lamb",
        {
            "Param": r(3, 4),
            "Grad": r(3, 4),
            "LearningRate": lr(0.01),
            "Moment1": r(3, 4),
            "Moment2": pos(3, 4),
            "Beta1Pow": lr(0.9**3),
            "Beta2Pow": lr(0.999**3),
        },
        _lamb,
        attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-6, "weight_decay": 0.01},
    ),
    OpCase(
        "lamb",
        {
            "Param": r(3, 4),
            "Grad": r(3, 4),
            "LearningRate": lr(0.01),
            "Moment1": r(3, 4),
            "Moment2": pos(3, 4),
            "Beta1Pow": lr(0.5**2),
            "Beta2Pow": lr(0.7**2),
        },
        _lamb,
        attrs={"beta1": 0.5, "beta2": 0.7, "epsilon": 1e-6, "weight_decay": 0.01, "bias_correction": True},
        name="lamb_bias_correction",
    ),
    OpCase(
        "lamb",
        {
            "Param": np.zeros(5),
            "Grad": r(5),
            "LearningRate": lr(0.1),
            "Moment1": np.zeros(5),
            "Moment2": np.zeros(5),
            "Beta1Pow": lr(0.5),
            "Beta2Pow": lr(0.7),
        },
        _lamb,
        attrs={"beta1": 0.5, "beta2": 0.7, "epsilon": 1e-3, "weight_decay": 0.0},
        name="lamb_zero_param_ratio_one",
    ),
    OpCase(
        "lars_momentum",
        {"Param": r(3, 4), "Grad": r(3, 4), "Velocity": r(3, 4), "LearningRate": lr(0.5)},
        _lars,
        attrs={"mu": 0.9, "lars_coeff": 0.01, "lars_weight_decay": 0.001},
    ),
    OpCase(
        "lars_momentum",
        {"Param": np.zeros((2, 3)), "Grad": r(2, 3), "Velocity": r(2, 3), "LearningRate": lr(0.1)},
        _lars,
        attrs={"mu": 0.5, "lars_coeff": 0.01, "lars_weight_decay": 0.1},
        name="lars_momentum_zero_param",
    ),
    OpCase(
        "increment",
        {"X": np.array([4], dtype="int64")},
        lambda i, a: {"Out": np.array([7], dtype="int64")},
        attrs={"step": 3.0},
    ),
    OpCase("increment", {"X": np.array([0.5])}, lambda i, a: {"Out": np.array([1.5])}, name="increment_float"),
    _lr_case(
        "exponential",
        7,
        {"learning_rate": 0.1, "decay_steps": 5.0, "decay_rate": 0.5},
        0.1 * 0.5 ** (7 / 5),
        "lr_exponential",
    ),
    _lr_case(
        "exponential",
        7,
        {"learning_rate": 0.1, "decay_steps": 5.0, "decay_rate": 0.5, "staircase": True},
        0.1 * 0.5,
        "lr_exponential_staircase",
    ),
    _lr_case(
        "natural_exp",
        3,
        {"learning_rate": 0.2, "decay_steps": 2.0, "decay_rate": 0.3},
        0.2 * math.exp(-0.3 * 1.5),
        "lr_natural_exp",
    ),
    _lr_case(
        "inverse_time",
        9,
        {"learning_rate": 0.2, "decay_steps": 4.0, "decay_rate": 0.5, "staircase": True},
        0.2 / (1 + 0.5 * 2),
        "lr_inverse_time_staircase",
    ),
    _lr_case(
        "polynomial",
        3,
        {"learning_rate": 0.1, "decay_steps": 10.0, "end_learning_rate": 0.01, "power": 2.0},
        (0.1 - 0.01) * (1 - 0.3) ** 2 + 0.01,
        "lr_polynomial",
    ),
    _lr_case(
        "polynomial",
        30,
        {"learning_rate": 0.1, "decay_steps": 10.0, "end_learning_rate": 0.01},
        0.01,
        "lr_polynomial_after_end",
    ),
    _lr_case(
        "polynomial",
        25,
        {"learning_rate": 0.1, "decay_steps": 10.0, "end_learning_rate": 0.0, "cycle": True},
        0.1 * (1 - 25 / 30),
        "lr_polynomial_cycle",
    ),
    _lr_case("piecewise", 10, {"boundaries": [5.0, 10.0], "values": [1.0, 0.5, 0.1]}, 0.1, "lr_piecewise"),
    _lr_case(
        "cosine",
        25,
        {"learning_rate": 0.4, "step_each_epoch": 10.0, "epochs": 4.0},
        0.4 * 0.5 * (math.cos(2 * math.pi / 4) + 1),
        "lr_cosine",
    ),
    _lr_case(
        "noam",
        4,
        {"learning_rate": 2.0, "d_model": 16.0, "warmup_steps": 10.0},
        2.0 * 16**-0.5 * min(4**-0.5, 10**-1.5 * 4),
        "lr_noam",
    ),
    _lr_case("linear_warmup", 3, {"warmup_steps": 10.0, "start_lr": 0.0, "end_lr": 0.1}, 0.03, "lr_linear_warmup"),
    _lr_case(
        "linear_warmup",
        12,
        {"warmup_steps": 10.0, "start_lr": 0.0, "end_lr": 0.1},
        0.25,
        "lr_linear_warmup_after_variable_base",
        base_input=0.25,
    ),
    _avg_case(
        "average_accumulates_inside_window",
        5,
        5,
        3,
        {"average_window": 0.5, "min_average_window": 2, "max_average_window": 100},
    ),
    _avg_case(
        "average_accumulates_window_restarts",
        9,
        4,
        3,
        {"average_window": 0.5, "min_average_window": 2, "max_average_window": 100},
    ),
    _avg_case(
        "average_accumulates_max_window",
        99,
        9,
        10,
        {"average_window": 0.9, "min_average_window": 1, "max_average_window": 10},
        dtype="float32",
    ),
    _avg_case(
        "average_accumulates_sum_1_folds",
        16383,
        40,
        3,
        {"average_window": 0.5, "min_average_window": 10000, "max_average_window": 20000},
    ),
    _avg_case(
        "average_accumulates_folds_and_restarts",
        16383,
        9999,
        7,
        {"average_window": 0.5, "min_average_window": 10000, "max_average_window": 20000},
    ),
]


# Fluid 1.8's attributes given by tensors (pe_cli/kernels/tensor_attrs.py): the tensor holds a value other
# than the attribute's, so a kernel that read the attribute fails the reference.
def _adam_tensors(i, a):
    return _adam(i, dict(a, beta1=float(i["Beta1Tensor"][0]), beta2=float(i["Beta2Tensor"][0])))


CASES += [
    OpCase(
        "adam",
        {
            "Param": r(3, 4),
            "Grad": r(3, 4),
            "LearningRate": lr(0.1),
            "Moment1": r(3, 4),
            "Moment2": rng.uniform(0.1, 1.0, (3, 4)),
            "Beta1Pow": lr(0.6**2),
            "Beta2Pow": lr(0.8**2),
            "Beta1Tensor": lr(0.6),
            "Beta2Tensor": lr(0.8),
        },
        _adam_tensors,
        attrs={"epsilon": 1e-3},
        name="adam_beta_tensors",
    ),
    # (Paddle 2.x's EpsilonTensor: the program's epsilon when it runs, the attribute another value)
    OpCase(
        "adam",
        {
            "Param": r(3, 4),
            "Grad": r(3, 4),
            "LearningRate": lr(0.1),
            "Moment1": r(3, 4),
            "Moment2": rng.uniform(0.1, 1.0, (3, 4)),
            "Beta1Pow": lr(0.9**2),
            "Beta2Pow": lr(0.999**2),
            "EpsilonTensor": lr(0.25),
        },
        lambda i, a: _adam(i, dict(a, epsilon=float(i["EpsilonTensor"][0]))),
        attrs={"epsilon": 1e-8},
        name="adam_epsilon_tensor",
    ),
]
