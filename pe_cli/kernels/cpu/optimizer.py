"""Update kernels and the learning-rate schedule kernels. sgd and momentum are structured kernels: their meta
rules (pe_cli/shapes/optimizer.py) and out-kernels (optimizer_out.py), which the registry binds
(ops/optimizer.py, ops/momentum.py); ``sgd`` and ``momentum`` here are the two as ``kernel(ins, attrs, ctx)``
for the callers that run a kernel by name (dgc_momentum, the fused updates, op tests). Every other output is
a new array, except where the executor lets an update write over its parameter and state
(``ctx.update_in_place``: adam on dense float arrays, the row-sparse updates on their rows). adam's dense
and lazy updates are one-pass numba loops (_adam_loops.py); the others are vectorised numpy. The kernels that
update no parameter (increment, lr_schedule, average_accumulates) are in optimizer_schedules.py."""

import numpy as np

from ...base.errors import PeError
from ...base.selected_rows import SelectedRows
from . import _replicas, elementwise as _elementwise, selected_rows as sparse
from .runtime.loops import flat, is_float, lazy, loop_or
from ..context import NO_CONTEXT
from .optimizer_schedules import average_accumulates, increment, lr_schedule  # noqa: F401 (found here by the registry)
from ...shapes import optimizer as meta_rules
from ...shapes.optimizer import adam_reads_next_powers
from ..structured import adapter
from .optimizer_out import MOMENTUM, SGD, scalar as _scalar

_adam_loops = lazy("_adam_loops")

sgd = adapter(meta_rules.sgd_meta, SGD, "sgd")
momentum = adapter(meta_rules.momentum_meta, MOMENTUM, "momentum")  # (Paddle 2.x's terms: none by default)


def _in_place(ctx, written, read):
    """True when the executor lets an update write over its inputs ``written`` (ctx'
    ``ctx.update_in_place``: nothing but the run and its scope holds them), they are writable
    C-contiguous arrays of one dtype, and no two of them and ``read`` (the gradient) overlap."""
    if not ctx.update_in_place or type(read) is not np.ndarray:
        return False
    dtype = getattr(written[0], "dtype", None)
    for i, a in enumerate(written):
        if type(a) is not np.ndarray or a.dtype != dtype:
            return False
        flags = a.flags
        if not (flags.c_contiguous and flags.writeable) or _may_overlap(a, read):
            return False
        for b in written[:i]:
            if _may_overlap(a, b):
                return False
    return True


def _may_overlap(a, b):
    """np.may_share_memory, with its call saved where both arrays own their data (no base: numpy
    allocated each, and they share memory only when they are one array). ``base`` rather than
    ``flags.owndata``: a flags object is made on each access (a fifth of the tiny model's update)."""
    if a.base is None and b.base is None:
        return a is b
    return np.may_share_memory(a, b)


def dpsgd(ins, attrs, ctx):
    p, g = np.asarray(ins["Param"]), np.asarray(ins["Grad"])
    lr = _scalar(ins["LearningRate"], p.dtype)
    norm = float(np.sqrt(np.sum(np.square(g, dtype=np.float64))))
    scale = norm / attrs["clip"] if norm > attrs["clip"] else 1.0
    noise = ctx.rng.normal(0.0, attrs["sigma"]) if attrs["sigma"] > 0 else 0.0
    step = g / p.dtype.type(scale) + p.dtype.type(noise / attrs["batch_size"])
    return {"ParamOut": (p - lr * step).astype(p.dtype, copy=False)}


def dgc_momentum(ins, attrs, host=np.asarray, scale=None, kernels=None):
    """Fluid's DGCMomentumKernel: nothing (rampup_begin_step < 0), else Grad_out = Grad / nranks and
    momentum's update with it before the ramp-up step, sgd's from it on. ``host``, ``scale`` (the scale
    op's kernel) and ``kernels`` (momentum, sgd): the CUDA twin's."""
    p, g, v = ins["Param"], ins["Grad"], ins["Velocity"]
    rampup = int(attrs["rampup_begin_step"])
    if rampup < 0:
        return {"ParamOut": p, "VelocityOut": v, "Grad_out": g}
    nranks = int(host(ins["nranks"]).reshape(-1)[0])
    if nranks <= 1:
        raise PeError(f"dgc_momentum: DGC is not useful when num_trainers <= 1, but now nranks={nranks}")
    g_out = (scale or _elementwise.scale)({"X": g}, {"scale": 1.0 / nranks, "bias": 0.0, "bias_after_scale": True})[
        "Out"
    ]
    upd = dict(ins, Grad=g_out)
    attrs = {k: a for k, a in attrs.items() if not k.startswith("_")}
    momentum_kernel, sgd_kernel = kernels or (momentum, sgd)
    if int(host(ins["current_step"]).reshape(-1)[0]) < rampup:
        return dict(momentum_kernel(upd, attrs), Grad_out=g_out)
    return dict(sgd_kernel(upd, attrs), VelocityOut=v, Grad_out=g_out)


def adam(ins, attrs, ctx=NO_CONTEXT):
    p, g, m1, m2 = ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"]
    t = p.dtype.type
    lr = _scalar(ins["LearningRate"], p.dtype)
    beta1, beta2, eps = t(attrs["beta1"]), t(attrs["beta2"]), t(attrs["epsilon"])
    one = t(1)
    b1_in, b2_in = ins["Beta1Pow"], ins["Beta2Pow"]
    outs = {
        "Beta1PowOut": (b1_in * b1_in.dtype.type(attrs["beta1"])).astype(b1_in.dtype, copy=False),
        "Beta2PowOut": (b2_in * b2_in.dtype.type(attrs["beta2"])).astype(b2_in.dtype, copy=False),
    }
    sparse_grad = isinstance(g, SelectedRows)
    if sparse_grad and not g.numpy()[0].size:  # Fluid's kernel returns at once: nothing moves
        return {"ParamOut": p, "Moment1Out": m1, "Moment2Out": m2, "Beta1PowOut": b1_in, "Beta2PowOut": b2_in}
    pows = outs if sparse_grad and adam_reads_next_powers(ins, attrs) else {"Beta1PowOut": b1_in, "Beta2PowOut": b2_in}
    b1p, b2p = _scalar(pows["Beta1PowOut"], p.dtype), _scalar(pows["Beta2PowOut"], p.dtype)
    lr_t = lr * np.sqrt(one - b2p) / (one - b1p)
    eps_c = eps * np.sqrt(one - b2p) if attrs.get("epsilon_scaled") else eps  # Paddle 2.x's form, or Fluid's
    if sparse_grad:
        if attrs["lazy_mode"]:
            return dict(outs, **_lazy_adam(ins, attrs, ctx, lr_t, beta1, beta2, eps_c))
        g = g.to_dense()  # Fluid's non-lazy sparse adam: every row, g = 0 where untouched
    if is_float(p, g, m1, m2) and p.shape == g.shape == m1.shape == m2.shape:
        # one numba pass (_adam_loops.adam; numpy's expression made 3 temporaries of each size and took
        # 0.9 ms over the CTR bench's [400, 400] weight), over p, m1 and m2 where the executor allows
        args = (flat(p), flat(g), flat(m1), flat(m2), lr_t, beta1, beta2, one - beta1, one - beta2, eps_c)
        if _in_place(ctx, (p, m1, m2), g):
            loop_or(_replicas.adam_in_place, _adam_loops().adam_in_place, *args)(*args)
            return dict(outs, ParamOut=p, Moment1Out=m1, Moment2Out=m2)
        written = tuple(np.empty(a.shape, a.dtype) for a in (p, m1, m2))
        args += tuple(a.reshape(-1) for a in written)
        loop_or(_replicas.adam, _adam_loops().adam, *args)(*args)
        return dict(outs, ParamOut=written[0], Moment1Out=written[1], Moment2Out=written[2])
    m1_out = beta1 * m1 + (one - beta1) * g
    m2_out = beta2 * m2 + (one - beta2) * g * g
    p_out = p - lr_t * (m1_out / (np.sqrt(m2_out) + eps_c))
    return dict(
        outs,
        ParamOut=p_out.astype(p.dtype, copy=False),
        Moment1Out=m1_out.astype(m1.dtype, copy=False),
        Moment2Out=m2_out.astype(m2.dtype, copy=False),
    )


def _lazy_adam(ins, attrs, ctx, lr_t, beta1, beta2, eps_c):
    """lazy_mode: the rows the gradient does not hold keep what the outputs held: Param's (one
    variable, Fluid's optimizer), or an output's own earlier value (Fluid's op tests)."""
    p = ins["Param"]
    prior = [ins.get(f"{s}Out") for s in ("Param", "Moment1", "Moment2")]
    prior = prior if all(getattr(a, "shape", None) == p.shape for a in prior) and prior[0] is not p else None
    return sparse.lazy_adam(
        p,
        ins["Grad"],
        ins["Moment1"],
        ins["Moment2"],
        lr_t,
        beta1,
        beta2,
        eps_c,
        prior is None and ctx.update_in_place,
        prior,
    )


def adagrad(ins, attrs, ctx=NO_CONTEXT):
    p, g, m = ins["Param"], ins["Grad"], ins["Moment"]
    lr = _scalar(ins["LearningRate"], p.dtype)
    if isinstance(g, SelectedRows):
        return sparse.adagrad(p, g, m, lr, p.dtype.type(attrs["epsilon"]), ctx.update_in_place)
    m_out = m + g * g
    p_out = p - lr * g / (np.sqrt(m_out) + p.dtype.type(attrs["epsilon"]))
    return {"ParamOut": p_out.astype(p.dtype, copy=False), "MomentOut": m_out.astype(m.dtype, copy=False)}


def rmsprop(ins, attrs):
    p, g, ms, mom = ins["Param"], ins["Grad"], ins["MeanSquare"], ins["Moment"]
    t = p.dtype.type
    lr = _scalar(ins["LearningRate"], p.dtype)
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


def adamax(ins, attrs):
    p, g, m, u = ins["Param"], ins["Grad"], ins["Moment"], ins["InfNorm"]
    t = p.dtype.type
    lr = _scalar(ins["LearningRate"], p.dtype)
    b1p = _scalar(ins["Beta1Pow"], p.dtype)
    beta1, beta2, eps = t(attrs["beta1"]), t(attrs["beta2"]), t(attrs["epsilon"])
    m_out = beta1 * m + (t(1) - beta1) * g
    u_out = np.maximum(beta2 * u + eps, np.abs(g))
    p_out = p - (lr / (t(1) - b1p)) * (m_out / u_out)
    return {
        "ParamOut": p_out.astype(p.dtype, copy=False),
        "MomentOut": m_out.astype(m.dtype, copy=False),
        "InfNormOut": u_out.astype(u.dtype, copy=False),
    }


def adadelta(ins, attrs):
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


def decayed_adagrad(ins, attrs):
    p, g, m = ins["Param"], ins["Grad"], ins["Moment"]
    t = p.dtype.type
    lr = _scalar(ins["LearningRate"], p.dtype)
    decay = t(attrs["decay"])
    m_out = decay * m + (t(1) - decay) * g * g
    p_out = p - lr * g / (np.sqrt(m_out) + t(attrs["epsilon"]))
    return {"ParamOut": p_out.astype(p.dtype, copy=False), "MomentOut": m_out.astype(m.dtype, copy=False)}


def ftrl(ins, attrs):
    p, g, sq, lin = ins["Param"], ins["Grad"], ins["SquaredAccumulator"], ins["LinearAccumulator"]
    t = p.dtype.type
    lr = _scalar(ins["LearningRate"], p.dtype)
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


def lamb(ins, attrs):
    p, g, m1, m2 = ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"]
    t = p.dtype.type
    lr = _scalar(ins["LearningRate"], p.dtype)
    b1p, b2p = _scalar(ins["Beta1Pow"], p.dtype), _scalar(ins["Beta2Pow"], p.dtype)
    beta1, beta2, one = t(attrs["beta1"]), t(attrs["beta2"]), t(1)
    m1_out = beta1 * m1 + (one - beta1) * g
    m2_out = beta2 * m2 + (one - beta2) * g * g
    if not attrs.get("bias_correction"):  # Fluid 1.8's: the moments as they are
        b1p = b2p = t(0)
    r = (m1_out / (one - b1p)) / (np.sqrt(m2_out / (one - b2p)) + t(attrs["epsilon"])) + t(attrs["weight_decay"]) * p
    p_norm, r_norm = np.sqrt(np.sum(p * p)), np.sqrt(np.sum(r * r))
    ratio = p_norm / r_norm if p_norm > 0 and r_norm > 0 else one
    b1_in, b2_in = ins["Beta1Pow"], ins["Beta2Pow"]
    return {
        "ParamOut": (p - lr * ratio * r).astype(p.dtype, copy=False),
        "Moment1Out": m1_out.astype(m1.dtype, copy=False),
        "Moment2Out": m2_out.astype(m2.dtype, copy=False),
        "Beta1PowOut": (b1_in * b1_in.dtype.type(attrs["beta1"])).astype(b1_in.dtype, copy=False),
        "Beta2PowOut": (b2_in * b2_in.dtype.type(attrs["beta2"])).astype(b2_in.dtype, copy=False),
    }


def lars_momentum(ins, attrs):
    p, g, v = ins["Param"], ins["Grad"], ins["Velocity"]
    t = p.dtype.type
    lr = _scalar(ins["LearningRate"], p.dtype)
    coeff, decay = t(attrs["lars_coeff"]), t(attrs["lars_weight_decay"])
    p_norm, g_norm = np.sqrt(np.sum(p * p)), np.sqrt(np.sum(g * g))
    local_lr = lr * coeff * p_norm / (g_norm + decay * p_norm) if p_norm > 0 and g_norm > 0 else lr
    v_out = t(attrs["mu"]) * v + local_lr * (g + decay * p)
    return {"ParamOut": (p - v_out).astype(p.dtype, copy=False), "VelocityOut": v_out.astype(v.dtype, copy=False)}
