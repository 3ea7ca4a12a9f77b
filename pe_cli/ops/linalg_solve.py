"""Paddle 2.x's linear algebra over batches of matrices, under Paddle 2.6's op types: mv (matrix times
vector), determinant, slogdeterminant ([sign, log|det|] stacked first), solve (X^-1 Y, Y a vector or matrices,
batch dims broadcast), triangular_solve (upper / transpose / unitriangular), cholesky_solve (the system of
Y Y^T, or Y^T Y with upper, against X), multi_dot (a chain of matmuls, the ends possibly vectors) and
matrix_power (X^n, n < 0 through the inverse). Kernels: numpy's LAPACK (kernels/<device>/linalg_solve.py)."""

from ..kernels.cpu import linalg_solve as cpu_solve
from ..shapes import linalg_solve as rules
from .define import Attr, Structured, fmt_shape, grads_like, is_int, register
from .pointwise_math import QUANT

FLOATS = ("float32", "float64")


def _square(ctx, slot):
    x = ctx.shape(slot)
    if len(x) < 2 or (x[-1] >= 0 and x[-2] >= 0 and x[-1] != x[-2]):
        ctx.fail(f"{slot} {fmt_shape(x)} must be square matrices [..., n, n]")
    return x


def _grad_maker(name, reads, in_grads, with_out=False):
    def grad(g):
        ins = {s: g.input(s) for s in reads}
        if with_out:
            ins["Out"] = g.output("Out")
        ins["Out@GRAD"] = g.out_grad("Out")
        g.op(f"{name}_grad", ins, {f"{s}@GRAD": g.in_grad(s) for s in in_grads}, g.attrs)

    return grad


def _op(name, inputs, infer, doc, attrs=None, with_out=False):
    """The op and its grad op, their structured kernels' meta rules shapes/linalg_solve.py's ``<op>_meta`` (the
    two-operand solvers' gradients: ``pair_grad_meta``)."""
    grad_meta = getattr(rules, f"{name}_grad_meta", rules.pair_grad_meta)
    slots = [s.rstrip("*") for s in inputs]
    attrs = {**(attrs or {}), **QUANT}
    register(
        name,
        kernel_module="linalg_solve",
        inputs=inputs,
        outputs=["Out"],
        attrs=attrs,
        infer=infer,
        lod="drop",
        grad=_grad_maker(name, slots, slots, with_out),
        grad_reads=tuple(slots) + (("Out",) if with_out else ()),
        run_dtypes={slots[0]: FLOATS},
        doc=doc,
        structured=Structured(meta=getattr(rules, f"{name}_meta"), cpu=cpu_solve.OUT[name]),
    )
    register(
        f"{name}_grad",
        kernel_module="linalg_solve",
        inputs=inputs + (["Out"] if with_out else []) + ["Out@GRAD"],
        outputs=[f"{s}@GRAD{'*' if s + '*' in inputs else ''}?" for s in slots],
        attrs=attrs,
        infer=grads_like({f"{s}@GRAD": s for s in slots}),
        lod="drop",
        structured=Structured(meta=grad_meta, cpu=cpu_solve.OUT[f"{name}_grad"]),
    )


def _infer_mv(ctx):
    x, v = ctx.shape("X"), ctx.shape("Vec")
    if len(x) != 2 or len(v) != 1 or (x[1] >= 0 and v[0] >= 0 and x[1] != v[0]):
        ctx.fail(f"X {fmt_shape(x)} must be a matrix and Vec {fmt_shape(v)} a vector of its columns")
    ctx.set_output("Out", [x[0]], ctx.dtype("X"))


def _infer_det(ctx):
    ctx.set_output("Out", _square(ctx, "Input")[:-2], ctx.dtype("Input"))


def _infer_slogdet(ctx):
    ctx.set_output("Out", [2] + list(_square(ctx, "Input")[:-2]), ctx.dtype("Input"))


def _infer_solve(ctx):
    x, y = _square(ctx, "X"), ctx.shape("Y")
    if len(y) == 1:
        ctx.set_output("Out", list(x[:-1]) if len(x) > 2 else [x[-1]], ctx.dtype("X"))
        return
    batch = [max(a, b) for a, b in zip([1] * (len(y) - len(x)) + list(x[:-2]), [1] * (len(x) - len(y)) + list(y[:-2]))]
    ctx.set_output("Out", batch + [x[-1], y[-1]], ctx.dtype("X"))


def _infer_triangular(ctx):
    x, y = _square(ctx, "X"), ctx.shape("Y")
    if len(y) < 2 or (x[-1] >= 0 and y[-2] >= 0 and x[-1] != y[-2]):
        ctx.fail(f"Y {fmt_shape(y)} must be matrices [..., {x[-1]}, k] against X {fmt_shape(x)}")
    batch = [max(a, b) for a, b in zip([1] * (len(y) - len(x)) + list(x[:-2]), [1] * (len(x) - len(y)) + list(y[:-2]))]
    ctx.set_output("Out", batch + list(y[-2:]), ctx.dtype("X"))


def _infer_cholesky_solve(ctx):
    x, y = ctx.shape("X"), _square(ctx, "Y")
    batch = [max(a, b) for a, b in zip([1] * (len(y) - len(x)) + list(x[:-2]), [1] * (len(x) - len(y)) + list(y[:-2]))]
    ctx.set_output("Out", batch + list(x[-2:]), ctx.dtype("X"))


def _infer_multi_dot(ctx):
    shapes = ctx.shapes("X")
    if len(shapes) < 2 or any(len(s) != 2 for s in shapes[1:-1]) or any(len(s) not in (1, 2) for s in shapes):
        ctx.fail(f"X {[list(s) for s in shapes]}: two or more matrices, the first and last may be vectors")
    rows = [] if len(shapes[0]) == 1 else [shapes[0][0]]
    cols = [] if len(shapes[-1]) == 1 else [shapes[-1][-1]]
    ctx.set_output("Out", rows + cols, ctx.dtype("X"))


def _infer_matrix_power(ctx):
    ctx.set_output("Out", _square(ctx, "X"), ctx.dtype("X"))


_op("mv", ["X", "Vec"], _infer_mv, "Out = X Vec (a matrix times a vector).")
_op("determinant", ["Input"], _infer_det, "Out = det(Input) of each [n, n] matrix.", with_out=True)
_op(
    "slogdeterminant",
    ["Input"],
    _infer_slogdet,
    "Out = [sign(det), log|det|] of each matrix, stacked first (the gradient flows through log|det|).",
    with_out=True,
)
_op("solve", ["X", "Y"], _infer_solve, "Out = X^-1 Y: Y a vector or matrices, batch dims broadcast.", with_out=True)
_op(
    "triangular_solve",
    ["X", "Y"],
    _infer_triangular,
    "Out = A^-1 Y for A the upper (lower) triangle of X, A^T with transpose, ones on the diagonal with unitriangular.",
    {
        "upper": Attr(True, choices=(True, False)),
        "transpose": Attr(False, choices=(False, True)),
        "unitriangular": Attr(False, choices=(False, True)),
    },
    with_out=True,
)
_op(
    "cholesky_solve",
    ["X", "Y"],
    _infer_cholesky_solve,
    "Out = (Y Y^T)^-1 X, Y a lower Cholesky factor ((Y^T Y)^-1 X with upper).",
    {"upper": Attr(False, choices=(False, True))},
    with_out=True,
)
_op("multi_dot", ["X*"], _infer_multi_dot, "Out = X[0] X[1] ... X[-1] (the first and last may be vectors).")
_op(
    "matrix_power",
    ["X"],
    _infer_matrix_power,
    "Out = X^n (n < 0: the inverse's power, n = 0: identity).",
    {"n": Attr(1, is_int, "an int")},
)
