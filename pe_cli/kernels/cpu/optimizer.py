"""Update kernels and the learning-rate schedule kernels. sgd, momentum and the updates numpy computes (adagrad,
decayed_adagrad, rmsprop, adamax, adadelta, ftrl, lamb, lars_momentum) are structured kernels: their meta rules
(pe_cli/shapes/optimizer.py) and out-kernels (optimizer_out.py, optimizer_numpy.py), which the registry binds
(ops/optimizer.py, ops/momentum.py); the module's kernels of those op types are the two as ``kernel(ins,
attrs, ctx)`` for the callers that run a kernel by name (dgc_momentum, the fused updates, op tests). Every other output is
a new array, except where the executor lets an update write over its parameter and state
(``ctx.update_in_place``: adam on dense float arrays, its row-sparse updates on their rows). adam's dense
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
from .optimizer_numpy import OUT
from .optimizer_out import MOMENTUM, SGD, scalar as _scalar

_adam_loops = lazy("_adam_loops")

sgd = adapter(meta_rules.sgd_meta, SGD, "sgd")
momentum = adapter(meta_rules.momentum_meta, MOMENTUM, "momentum")  # (Paddle 2.x's terms: none by default)
adagrad = adapter(meta_rules.adagrad_meta, OUT["adagrad"], "adagrad")
decayed_adagrad, rmsprop, adamax, adadelta, ftrl, lamb, lars_momentum = (
    adapter(meta_rules.NUMPY_METAS[name], OUT[name], name)
    for name in ("decayed_adagrad", "rmsprop", "adamax", "adadelta", "ftrl", "lamb", "lars_momentum")
)


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
