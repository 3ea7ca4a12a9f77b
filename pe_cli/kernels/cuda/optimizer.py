"""CUDA twins of kernels/cpu/optimizer.py: each update is one fused launch over the parameter, reading the learning
rate (and Adam's beta powers) from one-value device arrays (no host wait); learning-rate schedules are host math.
lamb and lars_momentum are in optimizer_layerwise.py, increment, lr_schedule and average_accumulates in
optimizer_schedules.py."""

import math

from numba import cuda

from ...base.selected_rows import SelectedRows
from . import elementwise as _elementwise, runtime as rt, selected_rows as sparse
from ._elementwise import scalar_arg
from ._host import given_cpu_kernel, with_args
from ._launch import flat, grid
from ._optimizer_launch import _as, beta_pows, _update
from .launcher import jit_kernel
from .optimizer_layerwise import lamb, lars_momentum  # noqa: F401 (found here by the registry)
from .optimizer_schedules import average_accumulates, increment, lr_schedule  # noqa: F401 (found here by the registry)
from ..context import NO_CONTEXT
from ...shapes.optimizer import adam_reads_next_powers


def dpsgd(ins, attrs, cpu_dpsgd):
    """On the host: one norm and one noise draw per parameter and step."""
    out = cpu_dpsgd({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {"ParamOut": rt.to_device(out["ParamOut"])}


@jit_kernel
def _sgd(p, g, lr, p_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    rate = lr[0]
    while i < p.size:
        p_out[i] = p[i] - rate * g[i]
        i += step


def sgd(ins, attrs, ctx=NO_CONTEXT):
    p, g, lr = ins["Param"], ins["Grad"], ins["LearningRate"]
    if isinstance(g, SelectedRows):
        return {"ParamOut": sparse.update_rows("sgd", ins, ctx, (), _as(lr, p.dtype))[0]}
    p_out = rt.empty(p.shape, p.dtype)
    if p.size:
        _sgd[grid(p.size)](flat(p), flat(g), _as(lr, p.dtype), flat(p_out))
    return {"ParamOut": p_out}


@jit_kernel
def _momentum(p, g, v, lr, mu, nesterov, p_out, v_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    rate = lr[0]
    while i < p.size:
        vo = v[i] * mu + g[i]
        v_out[i] = vo
        if nesterov:
            p_out[i] = p[i] - (g[i] + vo * mu) * rate
        else:
            p_out[i] = p[i] - rate * vo
        i += step


def momentum(ins, attrs):
    p, g, v, lr = ins["Param"], ins["Grad"], ins["Velocity"], ins["LearningRate"]
    if isinstance(g, SelectedRows):  # Fluid's sparse momentum updates every row (g = 0 elsewhere)
        g = sparse.densify({"X": g}, attrs)["Out"]
    p_out, v_out = rt.empty(p.shape, p.dtype), rt.empty(v.shape, v.dtype)
    if p.size:
        _momentum[grid(p.size)](
            flat(p),
            flat(g),
            flat(v),
            _as(lr, p.dtype),
            scalar_arg(p.dtype, attrs["mu"]),
            bool(attrs["use_nesterov"]),
            flat(p_out),
            flat(v_out),
        )
    return {"ParamOut": p_out, "VelocityOut": v_out}


@jit_kernel
def _adam(p, g, m1, m2, lr, b1p, b2p, beta1, beta2, eps, scaled, p_out, m1_out, m2_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    c2 = math.sqrt(1.0 - b2p[0])
    lr_t = lr[0] * c2 / (1.0 - b1p[0])
    e = eps * c2 if scaled else eps  # Paddle 2.x's epsilon, or Fluid 1.8's
    while i < p.size:
        gi = g[i]
        a = beta1 * m1[i] + (1.0 - beta1) * gi
        b = beta2 * m2[i] + (1.0 - beta2) * gi * gi
        m1_out[i] = a
        m2_out[i] = b
        p_out[i] = p[i] - lr_t * (a / (math.sqrt(b) + e))
        i += step


def adam(ins, attrs, ctx=NO_CONTEXT):
    p, g, m1, m2, b1_in, b2_in = (ins[s] for s in ("Param", "Grad", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow"))
    t = p.dtype
    pows = beta_pows(b1_in, b2_in, attrs)
    if isinstance(g, SelectedRows) and adam_reads_next_powers(ins, attrs):  # Fluid 1.8.5's (the CPU kernel's)
        b1_in, b2_in = pows["Beta1PowOut"], pows["Beta2PowOut"]
    if isinstance(g, SelectedRows) and attrs["lazy_mode"]:
        outs = sparse.update_rows(
            "adam",
            ins,
            ctx,
            ("Moment1", "Moment2"),
            _as(ins["LearningRate"], t),
            _as(b1_in, t),
            _as(b2_in, t),
            scalar_arg(t, attrs["beta1"]),
            scalar_arg(t, attrs["beta2"]),
            scalar_arg(t, attrs["epsilon"]),
            bool(attrs.get("epsilon_scaled")),
        )
        return dict(pows, **dict(zip(("ParamOut", "Moment1Out", "Moment2Out"), outs)))
    if isinstance(g, SelectedRows):  # not lazy: every row, g = 0 where untouched (SparseAdamFunctor)
        g = sparse.densify({"X": g}, attrs)["Out"]
    p_out, m1_out, m2_out = rt.empty(p.shape, t), rt.empty(m1.shape, m1.dtype), rt.empty(m2.shape, m2.dtype)
    if p.size:
        _adam[grid(p.size)](
            flat(p),
            flat(g),
            flat(m1),
            flat(m2),
            _as(ins["LearningRate"], t),
            _as(b1_in, t),
            _as(b2_in, t),
            scalar_arg(t, attrs["beta1"]),
            scalar_arg(t, attrs["beta2"]),
            scalar_arg(t, attrs["epsilon"]),
            bool(attrs.get("epsilon_scaled")),
            flat(p_out),
            flat(m1_out),
            flat(m2_out),
        )
    return dict(pows, ParamOut=p_out, Moment1Out=m1_out, Moment2Out=m2_out)


@jit_kernel
def _adagrad(p, g, m, lr, keep, add, eps, p_out, m_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    rate = lr[0]
    while i < p.size:
        gi = g[i]
        mo = keep * m[i] + add * gi * gi
        m_out[i] = mo
        p_out[i] = p[i] - rate * gi / (math.sqrt(mo) + eps)
        i += step


def _adagrad_update(ins, keep, add, eps):
    """MomentOut = keep * Moment + add * Grad^2; ParamOut = Param - lr * Grad / (sqrt(MomentOut) + eps)."""
    p, g, m = ins["Param"], ins["Grad"], ins["Moment"]
    p_out, m_out = rt.empty(p.shape, p.dtype), rt.empty(m.shape, m.dtype)
    if p.size:
        t = p.dtype
        _adagrad[grid(p.size)](
            flat(p),
            flat(g),
            flat(m),
            _as(ins["LearningRate"], t),
            scalar_arg(t, keep),
            scalar_arg(t, add),
            scalar_arg(t, eps),
            flat(p_out),
            flat(m_out),
        )
    return {"ParamOut": p_out, "MomentOut": m_out}


def adagrad(ins, attrs, ctx=NO_CONTEXT):
    if isinstance(ins["Grad"], SelectedRows):
        p = ins["Param"]
        outs = sparse.update_rows(
            "adagrad", ins, ctx, ("Moment",), _as(ins["LearningRate"], p.dtype), scalar_arg(p.dtype, attrs["epsilon"])
        )
        return {"ParamOut": outs[0], "MomentOut": outs[1]}
    return _adagrad_update(ins, 1.0, 1.0, attrs["epsilon"])


def decayed_adagrad(ins, attrs):
    return _adagrad_update(ins, attrs["decay"], 1.0 - attrs["decay"], attrs["epsilon"])


@jit_kernel
def _rmsprop(p, g, ms, mg, mom, lr, rho, eps, mu, centered, p_out, ms_out, mg_out, mom_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    rate = lr[0]
    while i < p.size:
        gi = g[i]
        s = rho * ms[i] + (1.0 - rho) * gi * gi
        ms_out[i] = s
        if centered:
            c = rho * mg[i] + (1.0 - rho) * gi
            mg_out[i] = c
            mo = mu * mom[i] + rate * gi / math.sqrt(s - c * c + eps)
        else:
            mo = mu * mom[i] + rate * gi / math.sqrt(s + eps)
        mom_out[i] = mo
        p_out[i] = p[i] - mo
        i += step


def rmsprop(ins, attrs):
    p, g, ms, mom = ins["Param"], ins["Grad"], ins["MeanSquare"], ins["Moment"]
    t = p.dtype
    centered = bool(attrs["centered"])
    p_out, ms_out, mom_out = rt.empty(p.shape, t), rt.empty(ms.shape, ms.dtype), rt.empty(mom.shape, mom.dtype)
    mg = ins["MeanGrad"] if centered else ms  # read only when centered
    mg_out = rt.empty(mg.shape, mg.dtype) if centered else ms_out
    if p.size:
        _rmsprop[grid(p.size)](
            flat(p),
            flat(g),
            flat(ms),
            flat(mg),
            flat(mom),
            _as(ins["LearningRate"], t),
            scalar_arg(t, attrs["decay"]),
            scalar_arg(t, attrs["epsilon"]),
            scalar_arg(t, attrs["momentum"]),
            centered,
            flat(p_out),
            flat(ms_out),
            flat(mg_out),
            flat(mom_out),
        )
    outs = {"ParamOut": p_out, "MomentOut": mom_out, "MeanSquareOut": ms_out}
    if centered:
        outs["MeanGradOut"] = mg_out
    return outs


@jit_kernel
def _adamax(p, g, m, u, lr, b1p, beta1, beta2, eps, p_out, m_out, u_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    lr_t = lr[0] / (1.0 - b1p[0])
    while i < p.size:
        gi = g[i]
        mo = beta1 * m[i] + (1.0 - beta1) * gi
        uo = max(beta2 * u[i] + eps, abs(gi))
        m_out[i] = mo
        u_out[i] = uo
        p_out[i] = p[i] - lr_t * (mo / uo)
        i += step


def adamax(ins, attrs):
    t = ins["Param"].dtype
    return _update(
        _adamax,
        ins,
        ["Moment", "InfNorm"],
        ["MomentOut", "InfNormOut"],
        _as(ins["LearningRate"], t),
        _as(ins["Beta1Pow"], t),
        scalar_arg(t, attrs["beta1"]),
        scalar_arg(t, attrs["beta2"]),
        scalar_arg(t, attrs["epsilon"]),
    )


@jit_kernel
def _adadelta(p, g, sg, su, rho, eps, p_out, sg_out, su_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < p.size:
        gi = g[i]
        s = rho * sg[i] + (1.0 - rho) * gi * gi
        upd = -math.sqrt((su[i] + eps) / (s + eps)) * gi
        sg_out[i] = s
        su_out[i] = rho * su[i] + (1.0 - rho) * upd * upd
        p_out[i] = p[i] + upd
        i += step


def adadelta(ins, attrs):
    t = ins["Param"].dtype
    return _update(
        _adadelta,
        ins,
        ["AvgSquaredGrad", "AvgSquaredUpdate"],
        ["AvgSquaredGradOut", "AvgSquaredUpdateOut"],
        scalar_arg(t, attrs["rho"]),
        scalar_arg(t, attrs["epsilon"]),
    )


@jit_kernel
def _ftrl(p, g, sq, lin, lr, l1, l2, c, p_out, sq_out, lin_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    rate = lr[0]
    while i < p.size:
        gi = g[i]
        n = sq[i] + gi * gi
        lo = lin[i] + gi - (n**c - sq[i] ** c) / rate * p[i]
        sq_out[i] = n
        lin_out[i] = lo
        if abs(lo) > l1:
            sign = 1.0 if lo > 0 else -1.0
            p_out[i] = (l1 * sign - lo) / (n**c / rate + 2.0 * l2)
        else:
            p_out[i] = 0.0
        i += step


def ftrl(ins, attrs, cpu_ftrl):
    """A row-sparse Grad updates only its rows (SparseFTRLFunctor): on the host, by the CPU's kernel."""
    if isinstance(ins["Grad"], SelectedRows):
        host = {
            k: v.with_arrays(v.rows, rt.to_host(v.values)) if isinstance(v, SelectedRows) else rt.to_host(v)
            for k, v in ins.items()
        }
        return {k: rt.to_device(v) for k, v in cpu_ftrl(host, attrs).items()}
    t = ins["Param"].dtype
    return _update(
        _ftrl,
        ins,
        ["SquaredAccumulator", "LinearAccumulator"],
        ["SquaredAccumOut", "LinearAccumOut"],
        _as(ins["LearningRate"], t),
        scalar_arg(t, attrs["l1"] + 1e-10),
        scalar_arg(t, attrs["l2"] + 1e-10),
        scalar_arg(t, -attrs["lr_power"]),
    )


HOST_OPS = {
    "dpsgd": given_cpu_kernel(dpsgd),
    "lr_schedule": given_cpu_kernel(lr_schedule),
    "ftrl": given_cpu_kernel(ftrl),
}
HOST_OPS["dgc_momentum"] = with_args(rt.to_host, _elementwise.scale, (momentum, sgd))  # the CPU's steps
