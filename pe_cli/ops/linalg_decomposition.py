"""Matrix decompositions (Paddle 2.x's ``paddle.linalg``): svd (with its gradient) and lstsq, over
the last two dims of a batch of real matrices."""

from ..kernels.cpu import linalg_decomposition as cpu_decomposition
from ..shapes import linalg_decompositions as rules
from .define import Attr, Structured, fmt_shape, register


def _matrix(ctx, slot, op):
    x = ctx.shape(slot)
    if len(x) < 2:
        ctx.fail(f"{slot} {fmt_shape(x)} must hold matrices in its last two dims (at least 2-D)")
    if ctx.dtype(slot) not in ("float32", "float64"):
        ctx.fail(f"{slot} is {ctx.dtype(slot)}; {op} takes float32 or float64")
    return list(x)


def _infer_svd(ctx):
    x = _matrix(ctx, "X", "svd")
    *batch, m, n = x
    k = min(m, n) if m >= 0 and n >= 0 else -1
    full = ctx.attrs["full_matrices"]
    dtype = ctx.dtype("X")
    ctx.set_output("U", batch + [m, m if full else k], dtype)
    ctx.set_output("S", batch + [k], dtype)
    ctx.set_output("VH", batch + [n if full else k, n], dtype)


def _grad_svd(g):
    ins = {"U": g.output("U"), "S": g.output("S"), "VH": g.output("VH")}
    for out in ("U", "S", "VH"):
        if g.has_out_grad(out):
            ins[f"{out}@GRAD"] = g.out_grad(out)
    g.op("svd_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)


_SVD_ATTRS = {"full_matrices": Attr(False, lambda v: isinstance(v, bool), "a bool")}
register(
    "svd",
    kernel_module="linalg_decomposition",
    inputs=["X"],
    outputs=["U", "S", "VH"],
    attrs=_SVD_ATTRS,
    infer=_infer_svd,
    grad=_grad_svd,
    grad_reads=("U", "S", "VH"),
    lod="drop",
    doc="X = U diag(S) VH for each matrix in X's last two dims [M, N]: S descending [K] (K = min(M, N)); "
    "U [M, K] and VH [K, N] (full_matrices: [M, M] and [N, N]). The gradient (full_matrices off) "
    "is the real SVD's: U ((F o (U^T dU - dU^T U)) S + diag(dS) + S (F o (V^T dV - dV^T V))) VH "
    "+ (I - U U^T) dU S^-1 VH + U S^-1 dV^T (I - V V^T), F_ij = 1 / (s_j^2 - s_i^2) off the "
    "diagonal and 0 between equal singular values (whose singular vectors are not unique).",
    structured=Structured(meta=rules.svd_meta, cpu=cpu_decomposition.OUT["svd"]),
)


def _infer_svd_grad(ctx):
    u, vh = ctx.shape("U"), ctx.shape("VH")
    ctx.set_output("X@GRAD", list(u[:-1]) + [vh[-1]], ctx.dtype("U"))


register(
    "svd_grad",
    kernel_module="linalg_decomposition",
    inputs=["U", "S", "VH", "U@GRAD?", "S@GRAD?", "VH@GRAD?"],
    outputs=["X@GRAD"],
    attrs=_SVD_ATTRS,
    infer=_infer_svd_grad,
    structured=Structured(meta=rules.svd_grad_meta, cpu=cpu_decomposition.OUT["svd_grad"]),
)


def _infer_lstsq(ctx):
    x, y = _matrix(ctx, "X", "lstsq"), _matrix(ctx, "Y", "lstsq")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} and Y {ctx.dtype('Y')}; lstsq takes one dtype")
    if x[-2] >= 0 and y[-2] >= 0 and x[-2] != y[-2]:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must have the same number of rows M")
    if len(x) != len(y):
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must have the same batch dims")
    *batch, m, n = x
    dtype = ctx.dtype("X")
    ctx.set_output("Solution", batch + [n, y[-1]], dtype)
    ctx.set_output("Residuals", [-1] * (len(batch) + 1), dtype)
    ctx.set_output("Rank", (batch or [1]) if ctx.attrs["driver"] != "gels" else [0], "int32")
    k = min(m, n) if m >= 0 and n >= 0 else -1
    ctx.set_output("SingularValues", batch + [k] if ctx.attrs["driver"] in ("gelsd", "gelss") else [0], dtype)


_DRIVERS = ("gels", "gelsd", "gelss", "gelsy")
register(
    "lstsq",
    kernel_module="linalg_decomposition",
    inputs=["X", "Y"],
    outputs=["Solution", "Residuals", "Rank", "SingularValues"],
    attrs={
        "rcond": Attr(0.0, lambda v: v >= 0 or v == -1, ">= 0"),
        "driver": Attr("gelsy", lambda v: v in _DRIVERS, f"one of {_DRIVERS}"),
    },
    infer=_infer_lstsq,
    lod="drop",
    doc="Solution = the least-squares (minimum-norm) solution of X Solution = Y for each matrix pair "
    "(X [M, N], Y [M, K]), singular values below rcond times the largest taken as zero (numpy's "
    "lstsq). Residuals [K]: the squared residual norms where M > N and X has rank N, else empty. "
    "Rank (int32, [1] for one matrix pair; empty for driver gels) and SingularValues (only for gelsd "
    "and gelss, else empty), as Paddle's. No gradient.",
    structured=Structured(meta=rules.lstsq_meta, cpu=cpu_decomposition.OUT["lstsq"]),
)
