"""Proximal updates (Fluid 1.8's proximal_gd and proximal_adagrad; kernels in
kernels/<device>/optimizer_proximal.py): a gradient step, then the proximal operator of the l1 and l2
penalties, which shrinks each value toward zero:
prox = Param - lr * step; ParamOut = sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2) (l1 > 0),
else prox / (1 + lr * l2). proximal_gd steps by Grad, proximal_adagrad by Grad / sqrt(Moment + Grad^2)
with MomentOut = Moment + Grad^2. ParamOut and MomentOut are Param's and Moment's variables."""

from ..kernels.cpu import optimizer_proximal as cpu_proximal
from ..shapes import optimizer as meta_rules
from .define import Attr, Structured, register
from .optimizer import infer_update

_PENALTIES = {"l1": Attr(0.0, lambda v: v >= 0, ">= 0"), "l2": Attr(0.0, lambda v: v >= 0, ">= 0")}

register(
    "proximal_gd",
    kernel_module="optimizer_proximal",
    inputs=["Param", "Grad", "LearningRate"],
    outputs=["ParamOut"],
    attrs=dict(_PENALTIES),
    infer=infer_update(),
    structured=Structured(meta=meta_rules.NUMPY_METAS["proximal_gd"], cpu=cpu_proximal.OUT["proximal_gd"]),
    doc="prox = Param - lr * Grad; ParamOut = the l1 / l2 proximal step of prox (see the family).",
)
register(
    "proximal_adagrad",
    kernel_module="optimizer_proximal",
    inputs=["Param", "Moment", "Grad", "LearningRate"],
    outputs=["ParamOut", "MomentOut"],
    attrs=dict(_PENALTIES),
    infer=infer_update([("MomentOut", "Moment")]),
    structured=Structured(meta=meta_rules.NUMPY_METAS["proximal_adagrad"], cpu=cpu_proximal.OUT["proximal_adagrad"]),
    doc="MomentOut = Moment + Grad^2; prox = Param - lr * Grad / sqrt(MomentOut); ParamOut = the l1 / l2 "
    "proximal step of prox (see the family).",
)
