"""Pointwise math Paddle 2.x adds to Fluid 1.8's activations, under Paddle 2.6's op types and attributes:
unary (silu, celu, tan, acosh, asinh, atanh, log2, log10, trunc, conj, logit: Out = f(X), the gradient reading X)
and binary or ternary with numpy broadcasting (atan2 of X1, X2; elementwise_fmax / elementwise_fmin, NaN
losing to a number; elementwise_heaviside; lerp: X + Weight (Y - X)). Their structured kernels: meta rules in
shapes/pointwise_math.py, CPU out-kernels (numpy; CUDA runs them on the host) and the formulas of each in
kernels/cpu/pointwise_math.py."""

from ..base.broadcast_shapes import broadcast
from ..kernels.cpu import elementwise_binary as cpu_binary, pointwise_math as cpu_pointwise
from ..shapes import elementwise as elementwise_rules, pointwise_math as meta_rules
from .define import Attr, Structured, fmt_shape, grad_of, grads_like, register
from .elementwise import broadcast_shape

FLOATS = ("float16", "float32", "float64")
QUANT = {"with_quant_attr": Attr(False)}  # every Paddle 2.6 op carries it; a flag, nothing computed


def _same(ctx):
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _unary(name, doc, attrs=None, differentiable=True, dtypes=FLOATS):
    attrs = {**(attrs or {}), **QUANT}

    register(
        name,
        kernel_module="pointwise_math",
        inputs=["X"],
        outputs=["Out"],
        attrs=attrs,
        infer=_same,
        grad=grad_of(f"{name}_grad", ("X",)) if differentiable else None,
        grad_reads=("X",) if differentiable else (),
        run_dtypes={"X": dtypes} if dtypes else None,
        structured=Structured(meta=meta_rules.FORWARD[name], cpu=cpu_pointwise.FORWARD[name]),
        doc=doc,
    )
    if differentiable:
        register(
            f"{name}_grad",
            kernel_module="pointwise_math",
            inputs=["X", "Out@GRAD"],
            outputs=["X@GRAD"],
            attrs=attrs,
            infer=grads_like({"X@GRAD": "X"}),
            structured=Structured(meta=meta_rules.GRAD[name], cpu=cpu_pointwise.GRAD[name]),
        )


_unary("silu", "Out = X * sigmoid(X) (Paddle 2.x's nn.Silu, F.silu).")
_unary(
    "celu",
    "Out = max(0, X) + min(0, alpha (exp(X / alpha) - 1)).",
    {"alpha": Attr(1.0, lambda v: v != 0, "a number other than 0")},
)
_unary("tan", "Out = tan(X).")
_unary("acosh", "Out = acosh(X) (NaN below 1).")
_unary("asinh", "Out = asinh(X).")
_unary("atanh", "Out = atanh(X) (NaN outside [-1, 1]).")
_unary("log2", "Out = log2(X).")
_unary("log10", "Out = log10(X).")
_unary("trunc", "Out = X rounded toward zero; its gradient is 0 everywhere.")
_unary(
    "conj", "Out = the complex conjugate of X (X itself when real); the gradient: Out@GRAD's conjugate.", dtypes=None
)
_unary(
    "logit",
    "Out = log(p / (1 - p)), p = X clipped to [eps, 1 - eps]; the gradient is 0 where X lies outside [eps, 1 - eps].",
    {"eps": Attr(1e-6)},
)


def _binary(name, slots, doc, out_dtype=None, grads=None):
    """``slots``: the input slots, broadcast together to Out; ``grads``: those that get a gradient (all)."""
    grads = grads or slots

    def infer(ctx):
        shapes = [ctx.shape(s) for s in slots]
        out = broadcast(shapes)
        if out is None:
            ctx.fail(f"{', '.join(f'{s} {fmt_shape(sh)}' for s, sh in zip(slots, shapes))} do not broadcast")
        if name == "atan2" and len(shapes[0]) != len(shapes[1]):
            ctx.fail(f"X1 {fmt_shape(shapes[0])} and X2 {fmt_shape(shapes[1])} must have one rank (Paddle's atan2)")
        dtypes = {ctx.dtype(s) for s in slots}
        if len(dtypes) > 1:
            ctx.fail(f"inputs of dtypes {sorted(dtypes)}; {name} takes one dtype (cast them)")
        ctx.set_output("Out", out, out_dtype(ctx.dtype(slots[0])) if out_dtype else ctx.dtype(slots[0]))

    def grad(g):
        g.op(
            f"{name}_grad",
            {**{s: g.input(s) for s in slots}, "Out@GRAD": g.out_grad("Out")},
            {f"{s}@GRAD": g.in_grad(s) for s in grads},
            g.attrs,
        )

    register(
        name,
        kernel_module="pointwise_math",
        inputs=list(slots),
        outputs=["Out"],
        attrs=dict(QUANT),
        infer=infer,
        grad=grad,
        grad_reads=tuple(slots),
        structured=Structured(meta=meta_rules.FORWARD[name], cpu=cpu_pointwise.FORWARD[name]),
        doc=doc,
    )
    register(
        f"{name}_grad",
        kernel_module="pointwise_math",
        inputs=list(slots) + ["Out@GRAD"],
        outputs=[f"{s}@GRAD?" for s in grads],
        attrs=dict(QUANT),
        infer=grads_like({f"{s}@GRAD": s for s in grads}),
        structured=Structured(meta=meta_rules.GRAD[name], cpu=cpu_pointwise.GRAD[name]),
    )


_binary(
    "atan2",
    ("X1", "X2"),
    "Out = atan2(X1, X2), the angle of (X2, X1); integer inputs give float64.",
    out_dtype=lambda d: d if d in FLOATS else "float64",
)
_binary(
    "elementwise_fmax",
    ("X", "Y"),
    "Out = the larger of X and Y, a number winning over NaN (numpy's fmax); "
    "the gradient goes to X where X >= Y or Y is NaN, else to Y.",
)
_binary(
    "elementwise_fmin",
    ("X", "Y"),
    "Out = the smaller of X and Y, a number winning over NaN (numpy's fmin); "
    "the gradient goes to X where X <= Y or Y is NaN, else to Y.",
)
_binary(
    "elementwise_heaviside",
    ("X", "Y"),
    "Out = 0 where X < 0, Y where X == 0, 1 where X > 0; gradient 0 to X, Out@GRAD where X == 0 to Y.",
)
_binary(
    "lerp",
    ("X", "Y", "Weight"),
    "Out = X + Weight (Y - X), broadcast together; no gradient flows to Weight "
    "(Paddle 2.6's lerp_grad writes X's and Y's only).",
    grads=("X", "Y"),
)


# grad_add: what Paddle's backward writes to sum two gradients (elementwise_add's kernel, no gradient of its own)
def _infer_grad_add(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    out = broadcast_shape(x, y, ctx.attrs["axis"])
    if out is None:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} cannot broadcast (axis={ctx.attrs['axis']})")
    ctx.set_output("Out", out, ctx.dtype("X"))


register(
    "grad_add",
    kernel_module="elementwise",
    kernel="elementwise_add",
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs={"axis": Attr(-1, choices=(-1,)), **QUANT},
    infer=_infer_grad_add,  # (Paddle 2.6.2 adds numpy-style)
    structured=Structured(meta=elementwise_rules.FORWARD["add"], cpu=cpu_binary.FORWARD["add"]),
    doc="Out = X + Y (numpy's broadcast; Paddle 2.6.2's kernel takes axis -1 alone): the sum of two gradients Paddle's "
    "backward writes.",
)
