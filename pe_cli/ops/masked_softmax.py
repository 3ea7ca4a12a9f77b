"""paddle.incubate.softmax_mask_fuse's op, fused_softmax_mask: Out = softmax(X + Mask) along the last dim, Mask
[B, 1, S, S] broadcast over X's heads. The gradient is softmax's, from Out; none flows to Mask. (Its causal twin,
fused_softmax_mask_upper_triangle, has no CPU kernel in Paddle 2.6.2: no oracle, not here.)"""

from ..kernels.cpu import masked_softmax as cpu_masked_softmax
from ..shapes import softmax as rules
from .define import Structured, fmt_shape, grads_like, register
from .pointwise_math import QUANT


def _infer(ctx):
    x = ctx.shape("X")
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D [batch, heads, rows, columns]")
    m = ctx.shape("Mask")
    if (
        len(m) != 4
        or (m[1] not in (1, -1))
        or any(a >= 0 and b >= 0 and a != b for a, b in ((m[0], x[0]), (m[2], x[2]), (m[3], x[3])))
    ):
        ctx.fail(f"Mask {fmt_shape(m)} must be [batch, 1, rows, columns] for X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("X"))


def _grad(name):
    def grad(g):
        g.op(f"{name}_grad", {"Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})

    return grad


for _name, _inputs, _doc in (("fused_softmax_mask", ["X", "Mask"], "Out = softmax(X + Mask) along the last dim."),):
    register(
        _name,
        kernel_module="masked_softmax",
        structured=Structured(meta=rules.fused_softmax_mask_meta, cpu=cpu_masked_softmax.FUSED_SOFTMAX_MASK),
        inputs=_inputs,
        outputs=["Out"],
        attrs=dict(QUANT),
        infer=_infer,
        grad=_grad(_name),
        grad_reads=("Out",),
        traits=("probabilities",),
        doc=_doc,
    )
    register(
        f"{_name}_grad",
        kernel_module="masked_softmax",
        kernel="masked_softmax_grad",
        structured=Structured(meta=rules.masked_softmax_grad_meta, cpu=cpu_masked_softmax.MASKED_SOFTMAX_GRAD),
        inputs=["Out", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=dict(QUANT),
        infer=grads_like({"X@GRAD": "Out"}),
    )
