"""Update kernels and the learning-rate schedule kernels. sgd, momentum, adam and the updates numpy computes
(adagrad, decayed_adagrad, rmsprop, adamax, adadelta, ftrl, lamb, lars_momentum) are structured kernels: their
meta rules (pe_cli/shapes/optimizer.py) and out-kernels (optimizer_out.py, optimizer_numpy.py), which the
registry binds (ops/optimizer.py, ops/momentum.py); the module's kernels of those op types are the two as
``kernel(ins, attrs, ctx)`` for the callers that run a kernel by name (dgc_momentum, the fused updates, op
tests). dpsgd (it draws noise from the call's Generator: its out-kernel ``takes_context``) and dgc_momentum
(sgd's or momentum's kernel, as its values say) are structured kernels too, "numpy" variants (fresh);
``dgc_momentum`` by name stays the numpy form CUDA runs on the host with its own steps (kernels/cuda/optimizer.py). The kernels that update no parameter (increment, lr_schedule, average_accumulates) are in
optimizer_schedules.py."""

import numpy as np

from ...base.errors import PeError
from . import elementwise as _elementwise
from .optimizer_schedules import average_accumulates, increment, lr_schedule  # noqa: F401 (found here by the registry)
from ...shapes import optimizer as meta_rules
from ..structured import adapter, fresh_kernel, fresh_output
from .launches import by_variant
from .optimizer_numpy import OUT
from .optimizer_out import ADAM, MOMENTUM, SGD, scalar as _scalar

sgd = adapter(meta_rules.sgd_meta, SGD, "sgd")
momentum = adapter(meta_rules.momentum_meta, MOMENTUM, "momentum")  # (Paddle 2.x's terms: none by default)
adam = adapter(meta_rules.adam_meta, ADAM, "adam")
adagrad = adapter(meta_rules.adagrad_meta, OUT["adagrad"], "adagrad")
ftrl = adapter(meta_rules.ftrl_meta, OUT["ftrl"], "ftrl")
lamb = adapter(meta_rules.lamb_meta, OUT["lamb"], "lamb")
decayed_adagrad, rmsprop, adamax, adadelta, lars_momentum = (
    adapter(meta_rules.NUMPY_METAS[name], OUT[name], name)
    for name in ("decayed_adagrad", "rmsprop", "adamax", "adadelta", "lars_momentum")
)


def _dpsgd(ins, attrs, ctx):
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


def _dpsgd_out(ins, outs, attrs, meta, ctx):
    given = tuple(v for v in ins.values() if isinstance(v, np.ndarray))
    outs["ParamOut"] = fresh_output(_dpsgd(ins, attrs, ctx)["ParamOut"], meta.outputs["ParamOut"], given)


_dpsgd_out.takes_context = True
_dpsgd_out.launches = None


def _through(ins, outs, attrs, meta):
    """dgc_momentum before any ramp-up: every output its input (the rule's aliases), nothing to compute."""


_DGC = fresh_kernel(dgc_momentum, "dgc_momentum_numpy")
OUT_MORE = {
    "dpsgd": _dpsgd_out,
    "dgc_momentum": by_variant("dgc_momentum_out", None, numpy=_DGC, through=_through),
}
dpsgd = adapter(meta_rules.dpsgd_meta, OUT_MORE["dpsgd"], "dpsgd")
