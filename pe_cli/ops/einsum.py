"""einsum (Paddle 2.x's ``paddle.einsum``): a sum of products of its operands' elements named by an
equation's labels, numpy's rules (ellipses broadcast, an implicit output)."""

from ..kernels.cpu import einsum as cpu_einsum
from ..shapes.einsum import einsum_grad_meta, einsum_meta, explicit, label_sizes
from .define import Structured, fmt_shape, register


def _infer(ctx):
    shapes = [ctx.shape("Operands", i) for i in range(ctx.num_inputs("Operands"))]
    try:
        subs, out = explicit(ctx.attrs["equation"], [len(s) for s in shapes])
    except ValueError as e:
        ctx.fail(str(e))
    dtypes = {ctx.dtype("Operands", i) for i in range(len(shapes))}
    if len(dtypes) != 1 or not dtypes <= {"float32", "float64"}:
        ctx.fail(f"Operands are {sorted(dtypes)}; einsum takes operands of one dtype, float32 or float64")
    for s, shape in zip(subs, shapes):
        for other_s, other in zip(subs, shapes):
            for c, d in zip(s, shape):
                for c2, d2 in zip(other_s, other):
                    if c == c2 and d > 1 and d2 > 1 and d != d2:
                        ctx.fail(
                            f"label '{c}' is {d} in one operand and {d2} in another "
                            f"({', '.join(fmt_shape(x) for x in shapes)})"
                        )
    sizes = label_sizes(subs, shapes)
    ctx.set_output("Out", [sizes[c] for c in out] or ctx.scalar_shape(), dtypes.pop())


def _grad(g):
    g.op(
        "einsum_grad",
        {"Operands": g.input("Operands"), "Out@GRAD": g.out_grad("Out")},
        {"Operands@GRAD": g.in_grad("Operands")},
        g.attrs,
    )


def _infer_grad(ctx):
    for i in range(ctx.num_outputs("Operands@GRAD")):
        var = ctx.input_var("Operands", i)
        ctx.set_output("Operands@GRAD", var.shape, var.dtype, i=i)


register(
    "einsum",
    kernel_module="einsum",
    structured=Structured(meta=einsum_meta, cpu=cpu_einsum.EINSUM),
    inputs=["Operands*"],
    outputs=["Out"],
    attrs={"equation": ""},
    infer=_infer,
    grad=_grad,
    grad_reads=("Operands",),
    lod="drop",
    traits=("result_0d_in_paddle2",),
    doc="Out = numpy's einsum(equation, *Operands): labels shared by operands multiply, labels not in "
    "the output are summed, '...' broadcasts; without '->' the output is the broadcast dims then "
    "the labels seen once, sorted. A full contraction is [1] (0-D in a Paddle 2.x program). The gradient of an operand is the "
    "einsum of Out@GRAD with the other operands.",
)
register(
    "einsum_grad",
    kernel_module="einsum",
    structured=Structured(meta=einsum_grad_meta, cpu=cpu_einsum.EINSUM_GRAD),
    inputs=["Operands*", "Out@GRAD"],
    outputs=["Operands@GRAD*"],
    attrs={"equation": ""},
    infer=_infer_grad,
)
