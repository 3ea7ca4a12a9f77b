"""Special functions, elementwise (Paddle 2.x's ops, with Paddle 2.6.2's op types, slots and gradient
ops): digamma, lgamma, polygamma (attribute n >= 1; Paddle's paddle.polygamma(x, 0) is digamma),
erfinv, expm1, the modified Bessel functions of the first kind i0 and i1 and their exponentially
scaled forms i0e = e^-|x| i0 and i1e = e^-|x| i1, and nextafter (the next float after x towards y).
Their scalar math is kernels/special_math.py, computed in float64 and rounded to the input's dtype (structured
kernels: meta rules in shapes/special.py, CPU out-kernels in kernels/cpu/special.py);
the values at poles, at +-inf and outside erfinv's domain are Paddle's (see there)."""

from ..kernels.cpu import special as cpu_special
from ..shapes import special as meta_rules
from .define import Attr, Structured, is_int, register

_FLOATS = ("float16", "float32", "float64")
_F32_64 = ("float32", "float64")


def _structured(op_type, grad=False):
    """The op's (or its grad op's) structured kernel: meta rule (shapes/special.py), CPU out-kernel (kernels/cpu)."""
    if grad:
        return Structured(meta=meta_rules.GRAD[op_type], cpu=cpu_special.GRAD[op_type])
    return Structured(meta=meta_rules.FORWARD[op_type], cpu=cpu_special.FORWARD[op_type])


def _unary_infer(in_slot, out_slot, dtypes):
    def infer(ctx):
        dtype = ctx.dtype(in_slot)
        if dtype not in dtypes:
            ctx.fail(f"{in_slot} is {dtype}; {ctx.op.type} takes {' or '.join(dtypes)}")
        ctx.set_output(out_slot, ctx.shape(in_slot), dtype, lod_level=ctx.input_var(in_slot).lod_level)

    return infer


def _grad_infer(x):
    """``x``@GRAD has the shape and dtype of the incoming gradient (which has the forward input's)."""

    def infer(ctx):
        slot = next(s for s in ctx.op.inputs if s.endswith("@GRAD"))
        ctx.set_output(x + "@GRAD", ctx.shape(slot), ctx.dtype(slot))

    return infer


def _elementwise(op_type, doc, reads, dtypes=_FLOATS, lower=False, attrs=None):
    """Registers ``op_type`` (X -> Out, or x -> out with ``lower``) and ``<op_type>_grad``, which reads
    Out@GRAD and the forward slots ``reads``, as Paddle 2.6.2's grad op does."""
    x, out = ("x", "out") if lower else ("X", "Out")

    def grad(g):
        ins = {slot: (g.input(slot) if slot == x else g.output(slot)) for slot in reads}
        ins[out + "@GRAD"] = g.out_grad(out)
        g.op(f"{op_type}_grad", ins, {x + "@GRAD": g.in_grad(x)}, g.attrs)

    register(
        op_type,
        kernel_module="special",
        inputs=[x],
        outputs=[out],
        attrs=attrs,
        infer=_unary_infer(x, out, dtypes),
        grad=grad,
        grad_reads=tuple(reads),
        structured=_structured(op_type),
        doc=doc,
    )
    register(
        f"{op_type}_grad",
        kernel_module="special",
        inputs=list(reads) + [out + "@GRAD"],
        outputs=[x + "@GRAD"],
        attrs=attrs,
        infer=_grad_infer(x),
        structured=_structured(op_type, grad=True),
    )


_elementwise(
    "digamma",
    "Out = psi(X), the logarithmic derivative of the gamma function (NaN at 0 and the "
    "negative integers); the gradient is Out@GRAD * polygamma(1, X).",
    ("X",),
)
_elementwise(
    "lgamma",
    "Out = log|gamma(X)| (+inf at 0 and the negative integers); the gradient is Out@GRAD * digamma(X).",
    ("X",),
)
_elementwise(
    "erfinv",
    "Out = erf^-1(X), +-inf at and beyond +-1; the gradient, from Out, is Out@GRAD * sqrt(pi) / 2 * exp(Out^2).",
    ("Out",),
)
_elementwise(
    "i0",
    "out = I0(x), the modified Bessel function of the first kind of order 0 (NaN at +-inf); "
    "the gradient is out@GRAD * I1(x).",
    ("x",),
    _F32_64,
    lower=True,
)
_elementwise(
    "i0e",
    "out = e^-|x| I0(x); the gradient is out@GRAD * (i1e(x) - sign(x) i0e(x)).",
    ("x", "out"),
    _F32_64,
    lower=True,
)
_elementwise(
    "i1",
    "out = I1(x), of order 1 (NaN at +-inf); the gradient is out@GRAD * (I0(x) - I1(x) / x), 1/2 at 0.",
    ("x", "out"),
    _F32_64,
    lower=True,
)
_elementwise(
    "i1e",
    "out = e^-|x| I1(x); the gradient is out@GRAD * (i0e(x) - i1e(x) (sign(x) + 1/x)), 1/2 at 0.",
    ("x", "out"),
    _F32_64,
    lower=True,
)
_elementwise(
    "polygamma",
    "out = the n-th derivative of digamma at x, n >= 1: (-1)^(n+1) n! zeta(n + 1, x) "
    "(Hurwitz's zeta); the gradient is out@GRAD * polygamma(n + 1, x).",
    ("x",),
    _F32_64,
    lower=True,
    attrs={"n": Attr(1, lambda v: is_int(v) and v >= 1, "an int >= 1")},
)


def _infer_expm1(ctx):
    """Paddle's expm1 takes integers too; its kernel gives them as float32."""
    dtype = ctx.dtype("X")
    if dtype not in _FLOATS + ("int32", "int64"):
        ctx.fail(f"X is {dtype}; expm1 takes a float or int32/int64 tensor")
    ctx.set_output(
        "Out", ctx.shape("X"), dtype if dtype in _FLOATS else "float32", lod_level=ctx.input_var("X").lod_level
    )


def _grad_expm1(g):
    g.op("expm1_grad", {"Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register(
    "expm1",
    kernel_module="special",
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_expm1,
    grad=_grad_expm1,
    grad_reads=("Out",),
    structured=_structured("expm1"),
    doc="Out = exp(X) - 1, exact near 0; the gradient, from Out, is Out@GRAD * (Out + 1).",
)
register(
    "expm1_grad",
    kernel_module="special",
    inputs=["Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=_grad_infer("X"),
    structured=_structured("expm1", grad=True),
)


def _infer_nextafter(ctx):
    x, y = ctx.shape("x"), ctx.shape("y")
    for slot in ("x", "y"):
        if ctx.dtype(slot) not in _F32_64:
            ctx.fail(f"{slot} is {ctx.dtype(slot)}; nextafter takes float32 or float64")
    if ctx.dtype("x") != ctx.dtype("y"):
        ctx.fail(f"x is {ctx.dtype('x')} but y is {ctx.dtype('y')}; cast one of them")
    if len(x) != len(y) or any(a != b and a >= 0 and b >= 0 for a, b in zip(x, y)):
        ctx.fail(f"x {list(x)} and y {list(y)} must have the same shape")
    ctx.set_output("out", x, ctx.dtype("x"))


register(
    "nextafter",
    kernel_module="special",
    inputs=["x", "y"],
    outputs=["out"],
    infer=_infer_nextafter,
    structured=_structured("nextafter"),
    doc="out = the next representable value after x in the direction of y (x and y of one shape and "
    "dtype, as C's nextafter / nextafterf). No gradient.",
)
