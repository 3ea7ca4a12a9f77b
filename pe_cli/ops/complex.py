"""Complex tensors (Paddle 2.x's ops with Paddle 2.6.2's op types, slots and gradient ops): complex (a
complex tensor from its real and imaginary parts, broadcast), as_complex (a last dim of 2 read as the
parts) and as_real (back), real and imag (the parts), angle (the argument; 0 or pi of a real tensor).
complex64 holds float32 parts, complex128 float64 ones. Gradients are Paddle's: of a real loss L, a
complex value's is dL/dre + i dL/dim, so complex_grad gives X the real part and Y the imaginary part of
Out@GRAD (summed over broadcast dims), real_grad gives Out@GRAD + 0i, imag_grad 0 + Out@GRAD i,
angle_grad Out@GRAD (-im + i re) / |X|^2 (0 at 0, and for a real X), and as_complex's and as_real's
gradients are each other's op."""

from ..base.dtypes import COMPLEX_OF, REAL_OF
from ..base.dims import fmt_shape
from ..kernels.cpu import complex as cpu
from ..shapes import complex as metas
from .define import Structured, register


def _broadcast(ctx, a, b):
    out = []
    for m, n in zip([1] * (len(b) - len(a)) + list(a), [1] * (len(a) - len(b)) + list(b)):
        if m != n and 1 not in (m, n) and m >= 0 and n >= 0:
            ctx.fail(f"X {fmt_shape(a)} and Y {fmt_shape(b)} do not broadcast")
        out.append(-1 if -1 in (m, n) and 1 in (m, n) else max(m, n))
    return out


def _infer_complex(ctx):
    x, y = ctx.dtype("X"), ctx.dtype("Y")
    if x not in COMPLEX_OF or x != y:
        ctx.fail(f"X is {x} and Y {y}; complex takes two float32 or two float64 tensors")
    ctx.set_output("Out", _broadcast(ctx, ctx.shape("X"), ctx.shape("Y")), COMPLEX_OF[x])


def _grad_complex(g):
    g.op(
        "complex_grad",
        {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")},
    )


register(
    "complex",
    kernel_module="complex",
    structured=Structured(meta=metas.complex_meta, cpu=cpu.complex_out),
    inputs=["X", "Y"],
    outputs=["Out"],
    infer=_infer_complex,
    grad=_grad_complex,
    grad_reads=("X", "Y"),
    lod="drop",
    doc="Out = X + i Y (X and Y broadcast; float32 -> complex64, float64 -> complex128).",
)
register(
    "complex_grad",
    kernel_module="complex",
    structured=Structured(meta=metas.complex_grad_meta, cpu=cpu.complex_grad_out),
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    infer=lambda ctx: [ctx.set_output(s + "@GRAD", ctx.shape(s), ctx.dtype(s)) for s in ("X", "Y")],
)


def _part_infer(op_type, takes_real=False):
    def infer(ctx):
        dtype = ctx.dtype("X")
        if dtype in REAL_OF:
            ctx.set_output("Out", ctx.shape("X"), REAL_OF[dtype])
        elif takes_real and dtype in ("float16", "float32", "float64"):
            ctx.set_output("Out", ctx.shape("X"), dtype)
        else:
            ctx.fail(
                f"X is {dtype}; {op_type} takes a complex64 or complex128 tensor"
                + (" (or a float one)" if takes_real else "")
            )

    return infer


def _part(op_type, doc):
    def grad(g):
        g.op(f"{op_type}_grad", {"Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})

    def grad_infer(ctx):
        ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), COMPLEX_OF[ctx.dtype("Out@GRAD")])

    register(
        op_type,
        kernel_module="complex",
        structured=Structured(meta=metas.part_meta, cpu=getattr(cpu, f"{op_type}_out")),
        inputs=["X"],
        outputs=["Out"],
        infer=_part_infer(op_type),
        grad=grad,
        doc=doc,
    )
    register(
        f"{op_type}_grad",
        kernel_module="complex",
        structured=Structured(meta=metas.part_grad_meta, cpu=getattr(cpu, f"{op_type}_grad_out")),
        inputs=["Out@GRAD"],
        outputs=["X@GRAD"],
        infer=grad_infer,
    )


_part("real", "Out = the real part of X (complex64 -> float32, complex128 -> float64).")
_part("imag", "Out = the imaginary part of X.")


def _grad_angle(g):
    g.op("angle_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register(
    "angle",
    kernel_module="complex",
    structured=Structured(meta=metas.angle_meta, cpu=cpu.angle_out),
    inputs=["X"],
    outputs=["Out"],
    infer=_part_infer("angle", True),
    grad=_grad_angle,
    grad_reads=("X",),
    doc="Out = the argument of X, atan2(im, re), in (-pi, pi]; of a real X 0 or pi (its sign).",
)
register(
    "angle_grad",
    kernel_module="complex",
    structured=Structured(meta=metas.angle_grad_meta, cpu=cpu.angle_grad_out),
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X")),
)


def _infer_as_complex(ctx):
    shape, dtype = ctx.shape("X"), ctx.dtype("X")
    if dtype not in COMPLEX_OF or not shape or shape[-1] != 2:
        ctx.fail(f"X {fmt_shape(shape)} ({dtype}) must be float32 or float64 with a last dim of 2")
    ctx.set_output("Out", shape[:-1], COMPLEX_OF[dtype])


def _infer_as_real(ctx):
    if ctx.dtype("X") not in REAL_OF:
        ctx.fail(f"X is {ctx.dtype('X')}; as_real takes a complex64 or complex128 tensor")
    ctx.set_output("Out", list(ctx.shape("X")) + [2], REAL_OF[ctx.dtype("X")])


def _grad_by(op_type):
    """as_complex's gradient is the as_real op of Out@GRAD, and as_real's the as_complex op (Paddle's)."""

    def grad(g):
        g.op(op_type, {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")})

    return grad


register(
    "as_complex",
    kernel_module="complex",
    structured=Structured(meta=metas.as_complex_meta, cpu=cpu.as_complex_out),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_as_complex,
    grad=_grad_by("as_real"),
    lod="drop",
    doc="Out = X[..., 0] + i X[..., 1]: the last dim (of 2) read as the parts.",
)
register(
    "as_real",
    kernel_module="complex",
    structured=Structured(meta=metas.as_real_meta, cpu=cpu.as_real_out),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_as_real,
    grad=_grad_by("as_complex"),
    lod="drop",
    doc="Out[..., 0] = the real part of X, Out[..., 1] the imaginary.",
)
