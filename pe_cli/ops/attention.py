"""Attention as one op: ``scaled_dot_product_attention`` and its gradient, made by the fuse_attention
pass (pe_cli/compiler/passes/fuse_attention.py) from the chain the attention layers build (the heads'
transposes, scale, matmul_v2, the mask's elementwise_add, softmax, matmul_v2, the transpose back) and
its gradient ops.

Q [batch, Sq, heads, head_dim], K and V [batch, Sk, heads, head_dim] (the projections' outputs
reshaped by heads, not transposed), Mask (optional; added to the scores, broadcast to [batch, heads,
Sq, Sk] by numpy's rules; it gets no gradient): per (sample, head),

    Weights = softmax(alpha * Q K^T + Mask)     [batch, heads, Sq, Sk]
    Out = Weights V                             [batch, Sq, heads, head_dim]

the softmax as the softmax op computes it (the shifted logits clipped at -64, as Fluid's kernel).
The gradient op reads Q, K, V and Weights (the mask is in Weights already) and writes Q@GRAD, K@GRAD
and V@GRAD, each where the program wants it."""

from ..kernels.cpu import attention as cpu_attention
from ..shapes.attention import sdpa_grad_meta, sdpa_meta
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grads_like, register
from .fusion_patterns import SDPA, SDPA_GRAD


def _infer(ctx):
    q, k, v = ctx.shape("Q"), ctx.shape("K"), ctx.shape("V")
    if len(q) != 4 or len(k) != 4 or len(v) != 4:
        ctx.fail(
            f"Q, K and V must be [batch, seq, heads, head_dim], got Q {fmt_shape(q)}, K {fmt_shape(k)}, "
            f"V {fmt_shape(v)}"
        )

    def differ(a, b):
        return a >= 0 and b >= 0 and a != b

    if (
        differ(k[1], v[1])
        or any(differ(a, b) for a, b in zip(k[2:], v[2:]))
        or any(differ(q[i], k[i]) for i in (0, 2, 3))
        or differ(q[0], v[0])
    ):
        ctx.fail(
            f"Q {fmt_shape(q)}, K {fmt_shape(k)} and V {fmt_shape(v)} must share batch, heads and head_dim, "
            f"and K and V their seq"
        )
    for slot in ("K", "V") + (("Mask",) if ctx.has_input("Mask") else ()):
        if ctx.dtype(slot) != ctx.dtype("Q"):
            ctx.fail(f"Q is {ctx.dtype('Q')} but {slot} is {ctx.dtype(slot)}; cast one of them")
    scores = [q[0], q[2], q[1], k[1]]
    if ctx.has_input("Mask"):
        mask = ctx.shape("Mask")
        if len(mask) > 4 or any(differ(m, s) and m != 1 for m, s in zip(mask[::-1], scores[::-1])):
            ctx.fail(
                f"Mask {fmt_shape(mask)} does not broadcast to the scores [batch, heads, Sq, Sk] {fmt_shape(scores)}"
            )
    ctx.set_output("Out", list(q), ctx.dtype("Q"))
    ctx.set_output("Weights", scores, ctx.dtype("Q"))


def _grad(g):
    g.op(
        SDPA_GRAD,
        {
            "Q": g.input("Q"),
            "K": g.input("K"),
            "V": g.input("V"),
            "Weights": g.output("Weights"),
            "Out@GRAD": g.out_grad("Out"),
        },
        {"Q@GRAD": g.in_grad("Q"), "K@GRAD": g.in_grad("K"), "V@GRAD": g.in_grad("V")},
        {"alpha": g.attrs["alpha"]},
    )


_ALPHA = {"alpha": Attr(1.0)}  # the scores' scale: 1 / sqrt(head_dim) in a Transformer

register(
    SDPA,
    kernel_module="attention",
    inputs=["Q", "K", "V", "Mask?"],
    outputs=["Out", "Weights"],
    attrs=_ALPHA,
    infer=_infer,
    grad=_grad,
    grad_reads=("Q", "K", "V", "Weights"),
    doc="Out = softmax(alpha Q K^T + Mask) V per (sample, head) over Q [batch, Sq, heads, head_dim], K and "
    "V [batch, Sk, heads, head_dim]; Weights [batch, heads, Sq, Sk] the softmax. Made by the "
    "fuse_attention pass.",
    structured=Structured(meta=sdpa_meta, cpu=cpu_attention.SDPA),
)
register(
    SDPA_GRAD,
    kernel_module="attention",
    inputs=["Q", "K", "V", "Weights", "Out@GRAD"],
    outputs=["Q@GRAD?", "K@GRAD?", "V@GRAD?"],
    attrs=_ALPHA,
    infer=grads_like({"Q@GRAD": "Q", "K@GRAD": "K", "V@GRAD": "V"}),
    traits=("optional_outputs",),
    doc="Q@GRAD, K@GRAD and V@GRAD of scaled_dot_product_attention given Out@GRAD and its Weights.",
    structured=Structured(meta=sdpa_grad_meta, cpu=cpu_attention.SDPA_GRAD),
)
