"""identity_loss (paddle.incubate.identity_loss): X itself as the loss, reduced by `reduction` (0: sum, 1: mean,
2: none)."""

from ..kernels.cpu import loss_identity as cpu_loss_identity
from ..shapes import loss_identity as rules
from .define import Attr, Structured, grad_of, register
from .pointwise_math import QUANT

_ATTRS = {"reduction": Attr(1, choices=(0, 1, 2)), **QUANT}


def _infer(ctx):
    ctx.set_output("Out", ctx.shape("X") if ctx.attrs["reduction"] == 2 else [], ctx.dtype("X"))


register(
    "identity_loss",
    kernel_module="loss_identity",
    structured=Structured(meta=rules.identity_loss_meta, cpu=cpu_loss_identity.IDENTITY_LOSS),
    inputs=["X"],
    outputs=["Out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=grad_of("identity_loss_grad", ("X",)),
    grad_reads=("X",),
    lod="drop",
    doc="Out = sum(X) (reduction 0), mean(X) (1, 0-D) or X (2).",
)
register(
    "identity_loss_grad",
    kernel_module="loss_identity",
    structured=Structured(meta=rules.identity_loss_grad_meta, cpu=cpu_loss_identity.IDENTITY_LOSS_GRAD),
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_ATTRS,
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X")),
    no_need_buffer=("X",),
    lod="drop",
)
