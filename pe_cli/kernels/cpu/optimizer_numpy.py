"""The CPU out-kernels of the updates numpy computes (structured kernels, pe_cli/shapes/structured.py):
adagrad, decayed_adagrad, rmsprop, adamax, adadelta, ftrl, lamb and lars_momentum (``OUT``: op type ->
``out(ins, outs, attrs, meta)``). Their meta rules (pe_cli/shapes/optimizer.py, NUMPY_UPDATES) choose the
"numpy" variant, ``fresh``: the arrays numpy's expression makes are the outputs (kernels/structured.fresh_output,
a copy only where one is not a new array of the output's shape and dtype); adagrad's "rows" moves the rows a
row-sparse Grad holds, duplicates summed, over Param and Moment where the executor lets it (Meta.inplace),
else over copies of them."""

import numpy as np

from ...shapes.optimizer import lamb_form
from ..structured import fresh_output
from .launches import by_variant
from .optimizer_out import scalar


def fresh(compute, name):
    """The out-kernel of a "numpy" variant: ``compute(ins, attrs)`` (slot -> array), each output the Meta lists
    handed over (a copy where it is no new array of its shape and dtype: an input passed through)."""

    def out(ins, outs, attrs, meta):
        given = tuple(v for v in ins.values() if isinstance(v, np.ndarray))
        result = compute(ins, attrs)
        for slot, spec in meta.outputs.items():
            outs[slot] = fresh_output(result[slot], spec, given)

    out.__name__ = out.__qualname__ = name
    return out


def _adagrad_rows(ins, outs, attrs, meta):
    p, g, m = ins["Param"], ins["Grad"], ins["Moment"]
    p_out, m_out = outs["ParamOut"], outs["MomentOut"]
    lr, eps = scalar(ins["LearningRate"], p.dtype), p.dtype.type(attrs["epsilon"])
    rows, values = g.merged()
    m_rows = m[rows] + values * values
    if m_out is not m:  # (the rows Grad does not hold are the inputs')
        np.copyto(m_out, m)
    if p_out is not p:
        np.copyto(p_out, p)
    m_out[rows] = m_rows
    p_out[rows] = p[rows] - lr * values / (np.sqrt(m_rows) + eps)


def _adagrad(ins, attrs):
    p, g, m = ins["Param"], ins["Grad"], ins["Moment"]
    lr = scalar(ins["LearningRate"], p.dtype)
    m_out = m + g * g
    p_out = p - lr * g / (np.sqrt(m_out) + p.dtype.type(attrs["epsilon"]))
    return {"ParamOut": p_out.astype(p.dtype, copy=False), "MomentOut": m_out.astype(m.dtype, copy=False)}


def _rmsprop(ins, attrs):
    p, g, ms, mom = ins["Param"], ins["Grad"], ins["MeanSquare"], ins["Moment"]
    t = p.dtype.type
    lr = scalar(ins["LearningRate"], p.dtype)
    rho, eps, mu = t(attrs["decay"]), t(attrs["epsilon"]), t(attrs["momentum"])
    one = t(1)
    ms_out = rho * ms + (one - rho) * g * g
    outs = {}
    if attrs["centered"]:
        mg = ins["MeanGrad"]
        mg_out = rho * mg + (one - rho) * g
        mom_out = mu * mom + lr * g / np.sqrt(ms_out - mg_out * mg_out + eps)
        outs["MeanGradOut"] = mg_out.astype(mg.dtype, copy=False)
    else:
        mom_out = mu * mom + lr * g / np.sqrt(ms_out + eps)
    outs.update(
        {
            "ParamOut": (p - mom_out).astype(p.dtype, copy=False),
            "MomentOut": mom_out.astype(mom.dtype, copy=False),
            "MeanSquareOut": ms_out.astype(ms.dtype, copy=False),
        }
    )
    return outs


def _adamax(ins, attrs):
    p, g, m, u = ins["Param"], ins["Grad"], ins["Moment"], ins["InfNorm"]
    t = p.dtype.type
    lr = scalar(ins["LearningRate"], p.dtype)
    b1p = scalar(ins["Beta1Pow"], p.dtype)
    beta1, beta2, eps = t(attrs["beta1"]), t(attrs["beta2"]), t(attrs["epsilon"])
    m_out = beta1 * m + (t(1) - beta1) * g
    u_out = np.maximum(beta2 * u + eps, np.abs(g))
    p_out = p - (lr / (t(1) - b1p)) * (m_out / u_out)
    return {
        "ParamOut": p_out.astype(p.dtype, copy=False),
        "MomentOut": m_out.astype(m.dtype, copy=False),
        "InfNormOut": u_out.astype(u.dtype, copy=False),
    }


def _adadelta(ins, attrs):
    p, g, sg, su = ins["Param"], ins["Grad"], ins["AvgSquaredGrad"], ins["AvgSquaredUpdate"]
    t = p.dtype.type
    rho, eps = t(attrs["rho"]), t(attrs["epsilon"])
    sg_out = rho * sg + (t(1) - rho) * g * g
    update = -np.sqrt((su + eps) / (sg_out + eps)) * g
    su_out = rho * su + (t(1) - rho) * update * update
    return {
        "ParamOut": (p + update).astype(p.dtype, copy=False),
        "AvgSquaredGradOut": sg_out.astype(sg.dtype, copy=False),
        "AvgSquaredUpdateOut": su_out.astype(su.dtype, copy=False),
    }


def _decayed_adagrad(ins, attrs):
    p, g, m = ins["Param"], ins["Grad"], ins["Moment"]
    t = p.dtype.type
    lr = scalar(ins["LearningRate"], p.dtype)
    decay = t(attrs["decay"])
    m_out = decay * m + (t(1) - decay) * g * g
    p_out = p - lr * g / (np.sqrt(m_out) + t(attrs["epsilon"]))
    return {"ParamOut": p_out.astype(p.dtype, copy=False), "MomentOut": m_out.astype(m.dtype, copy=False)}


def _ftrl(ins, attrs):
    p, g, sq, lin = ins["Param"], ins["Grad"], ins["SquaredAccumulator"], ins["LinearAccumulator"]
    t = p.dtype.type
    lr = scalar(ins["LearningRate"], p.dtype)
    l1, l2, c = t(attrs["l1"]) + t(1e-10), t(attrs["l2"]) + t(1e-10), t(-attrs["lr_power"])
    new_sq = sq + g * g
    lin_out = lin + g - (new_sq**c - sq**c) / lr * p
    shrunk = (l1 * np.sign(lin_out) - lin_out) / (new_sq**c / lr + t(2) * l2)
    p_out = np.where(np.abs(lin_out) > l1, shrunk, t(0))
    return {
        "ParamOut": p_out.astype(p.dtype, copy=False),
        "SquaredAccumOut": new_sq.astype(sq.dtype, copy=False),
        "LinearAccumOut": lin_out.astype(lin.dtype, copy=False),
    }


def _ftrl_rows(ins, outs, attrs, meta):
    """ftrl of a row-sparse Grad (Fluid's and Paddle's SparseFTRLFunctor): only the rows Grad holds (duplicates
    summed, MergeAdd) are updated; every other row of the outputs keeps its input's values."""
    rows, values = ins["Grad"].merged()
    taken = {slot: ins[slot][rows] for slot in ("Param", "SquaredAccumulator", "LinearAccumulator")}
    updated = _ftrl({**ins, **taken, "Grad": values}, attrs)
    for slot, src in meta.inplace.items():
        if outs[slot] is not ins[src]:  # (the rows Grad does not hold are the inputs')
            np.copyto(outs[slot], ins[src])
        outs[slot][rows] = updated[slot]


def _lamb(ins, attrs, paddle2=False):
    p, g, m1, m2 = ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"]
    t = p.dtype.type
    lr = scalar(ins["LearningRate"], p.dtype)
    b1p, b2p = scalar(ins["Beta1Pow"], p.dtype), scalar(ins["Beta2Pow"], p.dtype)
    beta1, beta2, one = t(attrs["beta1"]), t(attrs["beta2"]), t(1)
    m1_out = beta1 * m1 + (one - beta1) * g
    m2_out = beta2 * m2 + (one - beta2) * g * g
    corrected, adapts = lamb_form(attrs, paddle2)
    if not corrected:  # Fluid 1.8's: the moments as they are
        b1p = b2p = t(0)
    r = (m1_out / (one - b1p)) / (np.sqrt(m2_out / (one - b2p)) + t(attrs["epsilon"])) + t(attrs["weight_decay"]) * p
    p_norm, r_norm = np.sqrt(np.sum(p * p)), np.sqrt(np.sum(r * r))
    ratio = p_norm / r_norm if adapts and p_norm > 0 and r_norm > 0 else one
    b1_in, b2_in = ins["Beta1Pow"], ins["Beta2Pow"]
    return {
        "ParamOut": (p - lr * ratio * r).astype(p.dtype, copy=False),
        "Moment1Out": m1_out.astype(m1.dtype, copy=False),
        "Moment2Out": m2_out.astype(m2.dtype, copy=False),
        "Beta1PowOut": (b1_in * b1_in.dtype.type(attrs["beta1"])).astype(b1_in.dtype, copy=False),
        "Beta2PowOut": (b2_in * b2_in.dtype.type(attrs["beta2"])).astype(b2_in.dtype, copy=False),
    }


def _lars_momentum(ins, attrs):
    p, g, v = ins["Param"], ins["Grad"], ins["Velocity"]
    t = p.dtype.type
    lr = scalar(ins["LearningRate"], p.dtype)
    coeff, decay = t(attrs["lars_coeff"]), t(attrs["lars_weight_decay"])
    p_norm, g_norm = np.sqrt(np.sum(p * p)), np.sqrt(np.sum(g * g))
    local_lr = lr * coeff * p_norm / (g_norm + decay * p_norm) if p_norm > 0 and g_norm > 0 else lr
    v_out = t(attrs["mu"]) * v + local_lr * (g + decay * p)
    return {"ParamOut": (p - v_out).astype(p.dtype, copy=False), "VelocityOut": v_out.astype(v.dtype, copy=False)}


OUT = {
    name: by_variant(f"{name}_out", None, numpy=fresh(compute, f"{name}_numpy"))
    for name, compute in {
        "decayed_adagrad": _decayed_adagrad,
        "rmsprop": _rmsprop,
        "adamax": _adamax,
        "adadelta": _adadelta,
        "lars_momentum": _lars_momentum,
    }.items()
}
OUT["adagrad"] = by_variant("adagrad_out", None, rows=_adagrad_rows, numpy=fresh(_adagrad, "adagrad_numpy"))
OUT["lamb"] = by_variant(
    "lamb_out",
    None,
    numpy=fresh(_lamb, "lamb_numpy"),
    numpy_paddle2=fresh(lambda ins, attrs: _lamb(ins, attrs, paddle2=True), "lamb_numpy_paddle2"),
)
OUT["ftrl"] = by_variant("ftrl_out", None, rows=_ftrl_rows, numpy=fresh(_ftrl, "ftrl_numpy"))
