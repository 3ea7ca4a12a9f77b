"""Kernels of pe_cli/ops/adamw.py: numpy, in the parameter's dtype, the attributes as the float32 Paddle holds.
adamw is a structured kernel: its meta rule (pe_cli/shapes/optimizer.py, NUMPY_METAS) and ``ADAMW``, its
out-kernel (numpy's arrays the outputs: optimizer_numpy.fresh); ``adamw`` here is the two as a kernel
(merged_adam's, the callers that run a kernel by name). check_finite_and_unscale, update_loss_scaling and
merged_adam are "numpy" variants too (kernels/structured.fresh_kernel); pow2_decay_with_linear_warmup's "fill"
writes its two values into the buffers it is handed (LearningRate and Step where the executor lets it)."""

import numpy as np

from ...shapes import optimizer as rules
from ...shapes.optimizer import NUMPY_METAS
from ..structured import adapter, fresh_kernel
from .launches import by_variant
from .optimizer_numpy import fresh


def _f(x, v):
    return x.dtype.type(np.float32(v))


def _one(a):
    return np.asarray(a).reshape(-1)[0]


def _adamw(ins, attrs):
    p, g, m1, m2 = ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"]
    b1p, b2p = ins["Beta1Pow"], ins["Beta2Pow"]
    if ins.get("SkipUpdate") is not None and bool(_one(ins["SkipUpdate"])):
        return {"ParamOut": p, "Moment1Out": m1, "Moment2Out": m2, "Beta1PowOut": b1p, "Beta2PowOut": b2p}
    beta1, beta2, eps = _f(p, attrs["beta1"]), _f(p, attrs["beta2"]), _f(p, attrs["epsilon"])
    lr = p.dtype.type(_one(ins["LearningRate"]))
    one = p.dtype.type(1)
    if attrs["with_decay"]:  # (lr_ratio scales the decay alone, as Paddle 2.6.2's CPU kernel computes)
        p = p - lr * _f(p, attrs["lr_ratio"]) * _f(p, attrs["coeff"]) * p
    m1o = beta1 * m1 + (one - beta1) * g
    m2o = beta2 * m2 + (one - beta2) * g * g
    b1, b2 = p.dtype.type(_one(b1p)), p.dtype.type(_one(b2p))
    lr_t = lr * np.sqrt(one - b2) / (one - b1)
    out = p - lr_t * (m1o / (np.sqrt(m2o) + eps * np.sqrt(one - b2)))
    keep = attrs["use_global_beta_pow"]
    return {
        "ParamOut": out.astype(p.dtype, copy=False),
        "Moment1Out": m1o.astype(m1.dtype, copy=False),
        "Moment2Out": m2o.astype(m2.dtype, copy=False),
        "Beta1PowOut": b1p if keep else (b1p * _f(b1p, attrs["beta1"])).astype(b1p.dtype),
        "Beta2PowOut": b2p if keep else (b2p * _f(b2p, attrs["beta2"])).astype(b2p.dtype),
    }


ADAMW = by_variant("adamw_out", None, numpy=fresh(_adamw, "adamw_numpy"))
adamw = adapter(NUMPY_METAS["adamw"], ADAMW, "adamw")


def _check_finite_and_unscale(ins, attrs):
    """Paddle 2.6.2's CPU kernel: X in order, each times 1 / Scale until one holds inf or NaN; from that one on,
    times 0 (inf and NaN stay NaN)."""
    xs, scale = ins["X"], ins["Scale"]
    inv, found, outs = 1 / _one(scale), False, []
    for x in xs:
        found = found or not np.all(np.isfinite(x))
        with np.errstate(invalid="ignore"):
            outs.append((x * x.dtype.type(0 if found else inv)).astype(x.dtype, copy=False))
    return {"Out": outs, "FoundInfinite": np.array([found])}


def _update_loss_scaling(ins, attrs):
    xs = ins["X"]
    found = bool(_one(ins["FoundInfinite"]))
    scale, good, bad = ins["PrevLossScaling"], ins["InGoodSteps"], ins["InBadSteps"]
    outs = [np.zeros_like(x) if found else x for x in xs]
    if attrs["stop_update"]:
        return {"Out": outs, "LossScaling": scale, "OutGoodSteps": good, "OutBadSteps": bad}
    s, n_good, n_bad = scale.reshape(-1)[0], int(_one(good)), int(_one(bad))
    t = scale.dtype.type
    if found:
        n_good, n_bad = 0, n_bad + 1
        if n_bad == attrs["decr_every_n_nan_or_inf"]:
            s, n_bad = max(s * t(np.float32(attrs["decr_ratio"])), t(1)), 0
    else:
        n_good, n_bad = n_good + 1, 0
        if n_good == attrs["incr_every_n_steps"]:
            grown = s * t(np.float32(attrs["incr_ratio"]))
            s, n_good = (grown if np.isfinite(grown) else s), 0
    return {
        "Out": outs,
        "LossScaling": np.full(scale.shape, s, scale.dtype),
        "OutGoodSteps": np.full(good.shape, n_good, good.dtype),
        "OutBadSteps": np.full(bad.shape, n_bad, bad.dtype),
    }


def _merged_adam(ins, attrs):
    outs = {k: [] for k in ("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut")}
    lrs = ins["LearningRate"]
    for i, p in enumerate(ins["Param"]):
        one = {
            "Param": p,
            "Grad": ins["Grad"][i],
            "LearningRate": lrs[i if len(lrs) > 1 else 0],
            "Moment1": ins["Moment1"][i],
            "Moment2": ins["Moment2"][i],
            "Beta1Pow": ins["Beta1Pow"][i],
            "Beta2Pow": ins["Beta2Pow"][i],
        }
        got = adamw(one, {**attrs, "lr_ratio": 1.0, "coeff": 0.0, "with_decay": False})
        for k in outs:
            outs[k].append(got[k])
    return outs


def _pow2_decay_with_linear_warmup(ins, outs, attrs, meta):
    """Paddle 2.6's Pow2DecayWithLinearWarmupKernel, in double, stored in LearningRate's dtype (Step read before
    StepOut, which may be its buffer, is written)."""
    n = int(np.asarray(ins["Step"]).reshape(-1)[0]) + 1
    warm, total = attrs["warmup_steps"], attrs["total_steps"]
    base, end = float(np.float32(attrs["base_lr"])), float(np.float32(attrs["end_lr"]))
    if n <= warm:
        value = base * n / warm
    elif n <= total:
        factor = 1 - (n - warm) / (total - warm)
        value = (base - end) * factor * factor + end
    else:
        value = end
    np.copyto(outs["LearningRateOut"], value, casting="unsafe")  # (np.full's cast)
    np.copyto(outs["StepOut"], n, casting="unsafe")


OUT = {
    "check_finite_and_unscale": fresh_kernel(_check_finite_and_unscale, "check_finite_and_unscale_out"),
    "update_loss_scaling": fresh_kernel(_update_loss_scaling, "update_loss_scaling_out"),
    "merged_adam": fresh_kernel(_merged_adam, "merged_adam_out"),
    "pow2_decay_with_linear_warmup": _pow2_decay_with_linear_warmup,
}
# (by name: CUDA's host kernels, kernels/cuda/adamw.py's HOST_OPS)
check_finite_and_unscale, update_loss_scaling, merged_adam, pow2_decay_with_linear_warmup = (
    adapter(getattr(rules, f"{op}_meta"), OUT[op], op) for op in OUT
)
