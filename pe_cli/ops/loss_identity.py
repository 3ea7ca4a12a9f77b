"""identity_loss (paddle.incubate.identity_loss): X itself as the loss, reduced by `reduction` (0: sum, 1: mean,
2: none)."""

from .define import Attr, grad_of, register
from .pointwise_math import QUANT

_ATTRS = {"reduction": Attr(1, choices=(0, 1, 2)), **QUANT}


def _infer(ctx):
    ctx.set_output("Out", ctx.shape("X") if ctx.attrs["reduction"] == 2 else [], ctx.dtype("X"))


register(
    "identity_loss",
    kernel_module="loss_identity",
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
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_ATTRS,
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X")),
    no_need_buffer=("X",),
    lod="drop",
)
