"""CUDA updates of the optimizer family scaled by a layer-wise trust ratio, the norms of the parameter
and of its step (lamb) or gradient (lars_momentum): each a fused launch after the norms' reductions.
optimizer.py, where the registry looks for them, imports them."""

import math

from numba import cuda

from ...shapes.optimizer import lamb_form
from ..context import NO_CONTEXT
from ._elementwise import scalar_arg
from ._launch import flat, grid
from ._optimizer_launch import _as, beta_pows, _update
from . import runtime as rt
from .launcher import jit_kernel
from .reduction import sum_of_squares


@jit_kernel
def _lamb_moments(p, g, m1, m2, b1p, b2p, corrected, beta1, beta2, eps, decay, m1_out, m2_out, r):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    c1 = 1.0 - b1p[0] if corrected else 1.0  # Fluid 1.8's lamb: no bias correction
    c2 = 1.0 - b2p[0] if corrected else 1.0
    while i < p.size:
        gi = g[i]
        a = beta1 * m1[i] + (1.0 - beta1) * gi
        b = beta2 * m2[i] + (1.0 - beta2) * gi * gi
        m1_out[i] = a
        m2_out[i] = b
        r[i] = (a / c1) / (math.sqrt(b / c2) + eps) + decay * p[i]
        i += step


@jit_kernel
def _lamb_step(p, r, lr, p_sq, r_sq, adapt, p_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    ratio = 1.0
    if adapt and p_sq[0] > 0 and r_sq[0] > 0:
        ratio = math.sqrt(p_sq[0]) / math.sqrt(r_sq[0])
    rate = lr[0] * ratio
    while i < p.size:
        p_out[i] = p[i] - rate * r[i]
        i += step


def lamb(ins, attrs, ctx=NO_CONTEXT):
    p, g, m1, m2 = ins["Param"], ins["Grad"], ins["Moment1"], ins["Moment2"]
    corrected, adapts = lamb_form(attrs, ctx.paddle2)
    t = p.dtype
    p_out, m1_out, m2_out = rt.empty(p.shape, t), rt.empty(m1.shape, m1.dtype), rt.empty(m2.shape, m2.dtype)
    if p.size:
        r = rt.empty(p.shape, t)
        b1, b2, eps, decay = (scalar_arg(t, attrs[k]) for k in ("beta1", "beta2", "epsilon", "weight_decay"))
        _lamb_moments[grid(p.size)](
            flat(p),
            flat(g),
            flat(m1),
            flat(m2),
            _as(ins["Beta1Pow"], t),
            _as(ins["Beta2Pow"], t),
            corrected,
            b1,
            b2,
            eps,
            decay,
            flat(m1_out),
            flat(m2_out),
            flat(r),
        )
        lr, p_sq, r_sq = _as(ins["LearningRate"], t), sum_of_squares(p), sum_of_squares(r)
        _lamb_step[grid(p.size)](flat(p), flat(r), lr, p_sq, r_sq, adapts, flat(p_out))
    return dict(
        beta_pows(ins["Beta1Pow"], ins["Beta2Pow"], attrs), ParamOut=p_out, Moment1Out=m1_out, Moment2Out=m2_out
    )


@jit_kernel
def _lars(p, g, v, lr, p_sq, g_sq, mu, coeff, decay, p_out, v_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    rate = lr[0]
    if p_sq[0] > 0 and g_sq[0] > 0:
        p_norm = math.sqrt(p_sq[0])
        rate = rate * coeff * p_norm / (math.sqrt(g_sq[0]) + decay * p_norm)
    while i < p.size:
        vo = mu * v[i] + rate * (g[i] + decay * p[i])
        v_out[i] = vo
        p_out[i] = p[i] - vo
        i += step


def lars_momentum(ins, attrs):
    p, g, t = ins["Param"], ins["Grad"], ins["Param"].dtype
    return _update(
        _lars,
        ins,
        ["Velocity"],
        ["VelocityOut"],
        _as(ins["LearningRate"], t),
        sum_of_squares(p),
        sum_of_squares(g),
        scalar_arg(t, attrs["mu"]),
        scalar_arg(t, attrs["lars_coeff"]),
        scalar_arg(t, attrs["lars_weight_decay"]),
    )
