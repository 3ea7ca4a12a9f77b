"""renorm (paddle.renorm): each slice of X along `axis` whose p-norm exceeds max_norm scaled to max_norm
(by max_norm / norm, as Paddle 2.6.2's CPU kernel), the others as they are. The gradient is the derivative of that."""

from ..kernels.cpu import renormalizing as cpu_renormalizing
from ..shapes.renormalizing import renorm_grad_meta, renorm_meta
from .define import Attr, Structured, fmt_shape, grad_of, grads_like, is_int, register
from .pointwise_math import QUANT

_ATTRS = {
    "p": Attr(2.0, lambda v: v > 0, "> 0"),
    "axis": Attr(-1, is_int, "an int"),
    "max_norm": Attr(1.0, lambda v: v >= 0, ">= 0"),
    **QUANT,
}


def _infer(ctx):
    x = ctx.shape("X")
    if not -len(x) <= ctx.attrs["axis"] < len(x):  # (paddle.renorm refuses it; Paddle 2.6.2's kernel reads past X)
        ctx.fail(f"axis={ctx.attrs['axis']} is no axis of X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("X"))


register(
    "renorm",
    kernel_module="renormalizing",
    structured=Structured(meta=renorm_meta, cpu=cpu_renormalizing.RENORM),
    inputs=["X"],
    outputs=["Out"],
    attrs=_ATTRS,
    grad=grad_of("renorm_grad", ("X",)),
    grad_reads=("X",),
    infer=_infer,
    doc="Out = X with each slice along `axis` whose p-norm exceeds max_norm scaled by max_norm / norm.",
)
register(
    "renorm_grad",
    kernel_module="renormalizing",
    structured=Structured(meta=renorm_grad_meta, cpu=cpu_renormalizing.RENORM_GRAD),
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
)
