"""Products of matrices and vectors, and the parts of a matrix: the ops Paddle 1.8 added under these
names (its layers in layers/matrix.py; kernels in kernels/<device>/matrix.py): addmm (Alpha * X @ Y +
Beta * Input, Input [1 or M, 1 or N] broadcast), bmm (a batch of products of 3-D tensors), dot (the
inner product along the last dim), cross (the cross product along a dim of size 3), kron (the
Kronecker product) and trace (the sums of a diagonal of the 2-D planes of two dims); Fluid 1.8's
bilinear_tensor_product (Out[b, k] = X[b] Weight[k] Y[b]^T + Bias)."""

from ..kernels.cpu import matmul as cpu_matmul
from ..kernels.cpu import matrix as cpu_matrix
from ..shapes import matmul as matmul_rules
from ..shapes import matrix as matrix_rules
from ..shapes.matrix import CROSS_DEFAULT_DIM, addmm_mismatch, cross_mismatch, kron_shape, trace_dims
from .define import Attr, Structured, backend_attrs, fmt_shape, grad_of, grads_like, is_int, register

_XY_GRADS = grads_like({"X@GRAD": "X", "Y@GRAD": "Y"})


def _known(*dims):
    return all(d >= 0 for d in dims)


def _differ(a, b):
    return _known(a, b) and a != b


# -- addmm --------------------------------------------------------------------------------------


def _infer_addmm(ctx):
    inp, x, y = ctx.shape("Input"), ctx.shape("X"), ctx.shape("Y")
    if len(inp) not in (1, 2) or len(x) != 2 or len(y) != 2:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must be 2-D, Input {fmt_shape(inp)} 2-D (or 1-D, a row)")
    if error := addmm_mismatch(inp, x, y):
        ctx.fail(error)
    ctx.set_output("Out", [x[0], y[1]], ctx.dtype("X"))


_ADDMM_ATTRS = {"Alpha": 1.0, "Beta": 1.0, **backend_attrs("use_mkldnn")}
register(
    "addmm",
    kernel_module="matrix",
    inputs=["Input", "X", "Y"],
    outputs=["Out"],
    attrs=_ADDMM_ATTRS,
    infer=_infer_addmm,
    grad=grad_of("addmm_grad", ("Input", "X", "Y"), in_grads=("Input", "X", "Y")),
    grad_reads=("Input", "X", "Y"),
    doc="Out = Alpha * X @ Y + Beta * Input, X [M, K], Y [K, N], Input [M or 1, N or 1] (or [N or 1], a row, as "
    "Paddle 2.x takes it; Fluid 1.8 refuses a 1-D Input).",
    structured=Structured(meta=matmul_rules.addmm_meta, cpu=cpu_matmul.ADDMM_OUT),
)
register(
    "addmm_grad",
    kernel_module="matrix",
    inputs=["Input", "X", "Y", "Out@GRAD"],
    outputs=["Input@GRAD?", "X@GRAD?", "Y@GRAD?"],
    attrs=_ADDMM_ATTRS,
    no_need_buffer=("Input",),
    infer=grads_like({"Input@GRAD": "Input", "X@GRAD": "X", "Y@GRAD": "Y"}),
    structured=Structured(meta=matmul_rules.addmm_grad_meta, cpu=cpu_matmul.ADDMM_GRAD),
)


# -- bmm ----------------------------------------------------------------------------------------


def _infer_bmm(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) != 3 or len(y) != 3:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must be 3-D")
    if _differ(x[0], y[0]):
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must have the same batch size")
    if _differ(x[2], y[1]):
        ctx.fail(f"X {fmt_shape(x)}'s width must equal Y {fmt_shape(y)}'s height")
    ctx.set_output("Out", [x[0], x[1], y[2]], ctx.dtype("X"))


register(
    "bmm",
    kernel_module="matrix",
    inputs=["X", "Y"],
    outputs=["Out"],
    infer=_infer_bmm,
    grad=grad_of("bmm_grad", ("X", "Y"), in_grads=("X", "Y")),
    grad_reads=("X", "Y"),
    structured=Structured(meta=matmul_rules.bmm_meta, cpu=cpu_matmul.MATMUL),
    doc="Out[b] = X[b] @ Y[b]: X [B, M, K], Y [B, K, N] -> Out [B, M, N].",
)
register(
    "bmm_grad",
    kernel_module="matrix",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    infer=_XY_GRADS,
    structured=Structured(meta=matmul_rules.bmm_grad_meta, cpu=cpu_matmul.MATMUL_GRAD),
)


# -- dot ----------------------------------------------------------------------------------------


def _infer_dot(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) not in (1, 2):
        ctx.fail(f"X {fmt_shape(x)} must be 1-D or 2-D")
    if len(y) != len(x) or any(_differ(a, b) for a, b in zip(x, y)):
        ctx.fail(f"Y {fmt_shape(y)} must have X {fmt_shape(x)}'s shape")
    ctx.set_output("Out", list(x[:-1]) + ([] if ctx.paddle2 else [1]), ctx.dtype("X"))


register(
    "dot",
    kernel_module="matrix",
    inputs=["X", "Y"],
    outputs=["Out"],
    infer=_infer_dot,
    grad=grad_of("dot_grad", ("X", "Y"), in_grads=("X", "Y")),
    grad_reads=("X", "Y"),
    traits=("paddle2_semantics",),
    doc="Out = the sum of X * Y along the last dim, kept as a dim of 1: [N] -> [1], [B, N] -> [B, 1]; in a Paddle "
    "2.x program dropped, as Paddle 2.6's: [N] -> [] (0-D), [B, N] -> [B].",
    structured=Structured(meta=matrix_rules.dot_meta, cpu=cpu_matrix.DOT),
)
register(
    "dot_grad",
    kernel_module="matrix",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    infer=_XY_GRADS,
    structured=Structured(meta=matrix_rules.dot_grad_meta, cpu=cpu_matrix.DOT_GRAD),
)


# -- cross --------------------------------------------------------------------------------------


def _infer_cross(ctx):
    x, y, dim = ctx.shape("X"), ctx.shape("Y"), ctx.attrs["dim"]
    if error := cross_mismatch(x, y):
        ctx.fail(error)
    if dim != CROSS_DEFAULT_DIM:
        if not -len(x) <= dim < len(x):
            ctx.fail(f"dim={dim} is out of range [-{len(x)}, {len(x) - 1}]")
        if _differ(x[dim], 3):
            ctx.fail(f"X {fmt_shape(x)}'s dim {dim} must be of size 3")
    ctx.set_output("Out", x, ctx.dtype("X"))


_CROSS_ATTRS = {"dim": Attr(CROSS_DEFAULT_DIM, is_int, "an int")}
register(
    "cross",
    kernel_module="matrix",
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs=_CROSS_ATTRS,
    infer=_infer_cross,
    grad=grad_of("cross_grad", ("X", "Y"), in_grads=("X", "Y")),
    grad_reads=("X", "Y"),
    doc="Out = the cross product of the 3-vectors of X and Y along dim (9, the default: along the first dim "
    "of size 3).",
    structured=Structured(meta=matrix_rules.cross_meta, cpu=cpu_matrix.CROSS),
)
register(
    "cross_grad",
    kernel_module="matrix",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    attrs=_CROSS_ATTRS,
    infer=_XY_GRADS,
    structured=Structured(meta=matrix_rules.cross_grad_meta, cpu=cpu_matrix.CROSS_GRAD),
)


# -- kron ---------------------------------------------------------------------------------------

register(
    "kron",
    kernel_module="matrix",
    inputs=["X", "Y"],
    outputs=["Out"],
    infer=lambda ctx: ctx.set_output("Out", kron_shape(ctx.shape("X"), ctx.shape("Y")), ctx.dtype("X")),
    grad=grad_of("kron_grad", ("X", "Y"), in_grads=("X", "Y")),
    grad_reads=("X", "Y"),
    doc="Out = the Kronecker product of X and Y (the one of lower rank with leading dims of 1).",
    structured=Structured(meta=matrix_rules.kron_meta, cpu=cpu_matrix.KRON),
)
register(
    "kron_grad",
    kernel_module="matrix",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    infer=_XY_GRADS,
    structured=Structured(meta=matrix_rules.kron_grad_meta, cpu=cpu_matrix.KRON_GRAD),
)


# -- trace --------------------------------------------------------------------------------------


def _infer_trace(ctx):
    x = ctx.shape("Input")
    if len(x) < 2:
        ctx.fail(f"Input {fmt_shape(x)} must have at least 2 dims")
    for what in ("dim1", "dim2"):
        if not -len(x) <= ctx.attrs[what] < len(x):
            ctx.fail(f"{what}={ctx.attrs[what]} is out of range [{-len(x)}, {len(x) - 1}]")
    a, b = ctx.attrs["dim1"] % len(x), ctx.attrs["dim2"] % len(x)
    if ctx.paddle2 and ctx.attrs["offset"] and a > b:
        ctx.fail(
            f"offset={ctx.attrs['offset']} with axis1={ctx.attrs['dim1']} after axis2={ctx.attrs['dim2']}: "
            f"Paddle 2.x moves the diagonal along axis2, Fluid 1.8 along the larger dim; pe computes only "
            f"Fluid 1.8's, so it refuses this (give the axes in increasing order)"
        )
    lo, hi = trace_dims(len(x), ctx.attrs)
    if lo == hi:
        ctx.fail(f"dim1={ctx.attrs['dim1']} and dim2={ctx.attrs['dim2']} must name different dims")
    out = [d for i, d in enumerate(x) if i not in (lo, hi)]
    ctx.set_output("Out", out or ([] if ctx.paddle2 else [1]), ctx.dtype("Input"))  # (0-D in Paddle 2.6)


_TRACE_ATTRS = {
    "offset": Attr(0, is_int, "an int"),
    "dim1": Attr(-2, is_int, "an int"),
    "dim2": Attr(-1, is_int, "an int"),
    # Paddle 2.x's names of dim1 and dim2 (its defaults 0 and 1 given only where a program sets them)
    "axis1": Attr(0, alias_of="dim1", fill=False),
    "axis2": Attr(1, alias_of="dim2", fill=False),
}
register(
    "trace",
    kernel_module="matrix",
    inputs=["Input"],
    outputs=["Out"],
    attrs=_TRACE_ATTRS,
    infer=_infer_trace,
    traits=("paddle2_semantics",),
    grad=grad_of("trace_grad", ("Input",), in_grads=("Input",)),
    grad_reads=("Input",),
    lod="drop",
    doc="Out = the sums of diagonal offset of the 2-D planes of dims (dim1, dim2), as Fluid 1.8 takes them: "
    "the smaller dim first (offset > 0 moves along the larger one), whatever their order.",
    structured=Structured(meta=matrix_rules.trace_meta, cpu=cpu_matrix.TRACE),
)
register(
    "trace_grad",
    kernel_module="matrix",
    inputs=["Input", "Out@GRAD"],
    outputs=["Input@GRAD"],
    attrs=_TRACE_ATTRS,
    no_need_buffer=("Input",),
    infer=grads_like({"Input@GRAD": "Input"}),
    structured=Structured(meta=matrix_rules.trace_grad_meta, cpu=cpu_matrix.TRACE_GRAD),
)


# -- bilinear_tensor_product (Fluid 1.8) -----------------------------------------------------------------


def _infer_bilinear(ctx):
    x, y, w = ctx.shape("X"), ctx.shape("Y"), ctx.shape("Weight")
    if len(x) != 2 or len(y) != 2 or len(w) != 3:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must be 2-D and Weight {fmt_shape(w)} [size, M, N]")
    for a, b, what in (
        (x[1], w[1], "X's width and Weight's dim 1"),
        (y[1], w[2], "Y's width and Weight's dim 2"),
        (x[0], y[0], "X's and Y's batch sizes"),
    ):
        if a >= 0 and b >= 0 and a != b:
            ctx.fail(f"{what} differ: X {fmt_shape(x)}, Y {fmt_shape(y)}, Weight {fmt_shape(w)}")
    if ctx.has_input("Bias") and list(ctx.shape("Bias")) not in ([1, w[0]], [w[0]]):
        ctx.fail(f"Bias {fmt_shape(ctx.shape('Bias'))} must be [1, {w[0]}]")
    ctx.set_output("Out", [x[0], w[0]], ctx.dtype("X"))


def _grad_bilinear(g):
    ins = {"X": g.input("X"), "Y": g.input("Y"), "Weight": g.input("Weight"), "Out@GRAD": g.out_grad("Out")}
    g.op(
        "bilinear_tensor_product_grad", ins, {f"{s}@GRAD": g.in_grad(s) for s in ("X", "Y", "Weight", "Bias")}, g.attrs
    )


def _infer_bilinear_grad(ctx):
    for slot in ("X", "Y", "Weight"):
        ctx.set_output(slot + "@GRAD", ctx.shape(slot), ctx.dtype(slot))
    ctx.set_output("Bias@GRAD", [1, ctx.shape("Weight")[0]], ctx.dtype("Weight"))


register(
    "bilinear_tensor_product",
    kernel_module="matrix",
    inputs=["X", "Y", "Weight", "Bias?"],
    outputs=["Out"],
    infer=_infer_bilinear,
    grad=_grad_bilinear,
    grad_reads=("Weight", "X", "Y"),
    lod="drop",
    doc="Out[b, k] = X[b] Weight[k] Y[b]^T + Bias[0, k].",
    structured=Structured(meta=matrix_rules.bilinear_meta, cpu=cpu_matrix.BILINEAR),
)
register(
    "bilinear_tensor_product_grad",
    kernel_module="matrix",
    inputs=["X", "Y", "Weight", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?", "Weight@GRAD?", "Bias@GRAD?"],
    infer=_infer_bilinear_grad,
    traits=("optional_outputs",),
    structured=Structured(meta=matrix_rules.bilinear_grad_meta, cpu=cpu_matrix.BILINEAR_GRAD),
)
