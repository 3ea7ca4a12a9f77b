"""Linear algebra: matrix products (mul, matmul, matmul_v2), square matrices' inverse and
cholesky, and spectral_norm (a weight over its largest singular value, by power iteration)."""

from ..base.activations import real_number
from ..base.dims import known_numel
from ..base.errors import ShapeError
from ..kernels.cpu import gemm as cpu_gemm
from ..kernels.cpu import linalg as cpu_linalg
from ..kernels.cpu import matmul as cpu_matmul
from ..shapes import gemm as meta_rules
from ..shapes import linalg_solve as lapack_rules
from ..shapes import matmul as matmul_rules
from ..shapes.linalg import matmul_flag, matmul_fused_out, matmul_v1_attrs
from .define import Attr, Structured, backend_attrs, fmt_shape, grad_of_bilinear_grad, grads_like, is_int, register


def _infer_mul(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    xd, yd = ctx.attrs["x_num_col_dims"], ctx.attrs["y_num_col_dims"]
    if not 0 < xd < len(x) + 1 or not 0 < yd < len(y):
        ctx.fail(f"x_num_col_dims={xd} / y_num_col_dims={yd} do not fit X {fmt_shape(x)} and Y {fmt_shape(y)}")
    k_x, k_y = known_numel(x[xd:]), known_numel(y[:yd])
    if k_x >= 0 and k_y >= 0 and k_x != k_y:
        ctx.fail(
            f"X {fmt_shape(x)} flattened to [{known_numel(x[:xd])}, {k_x}] cannot multiply "
            f"Y {fmt_shape(y)} flattened to [{k_y}, {known_numel(y[yd:])}]: {k_x} != {k_y}"
        )
    ctx.set_output("Out", list(x[:xd]) + list(y[yd:]), ctx.dtype("X"))


def _grad_mul(g):
    """Fluid's one ``mul_grad``: X@GRAD and Y@GRAD, each written where that input needs a gradient
    (its kernels compute only those)."""
    ins = {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")}
    g.op("mul_grad", ins, {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")}, g.attrs)


_MUL_ATTRS = {
    "x_num_col_dims": Attr(1, lambda v: v >= 1, ">= 1"),
    "y_num_col_dims": Attr(1, lambda v: v >= 1, ">= 1"),
    **backend_attrs("scale_x", "scale_y", "scale_out", "force_fp32_output", "use_mkldnn"),
}
register(
    "mul",
    kernel_module="linalg",
    grad_reads=("X", "Y"),
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs=_MUL_ATTRS,
    infer=_infer_mul,
    grad=_grad_mul,
    structured=Structured(meta=meta_rules.mul_meta, cpu=cpu_gemm.MUL),
    doc="Out = flatten(X, x_num_col_dims) @ flatten(Y, y_num_col_dims), reshaped back. The int8 attributes "
    "of Fluid's oneDNN kernel (scale_*, force_fp32_output) change nothing, as in its plain CPU kernel.",
)
register(
    "mul_grad",
    kernel_module="linalg",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    attrs=_MUL_ATTRS,
    infer=grads_like({"X@GRAD": "X", "Y@GRAD": "Y"}),
    traits=("optional_outputs",),
    structured=Structured(meta=meta_rules.mul_grad_meta, cpu=cpu_gemm.MUL_GRAD),
    grad=grad_of_bilinear_grad("mul", "X", "Y", "Out", {"X": "mul_grad", "Y": "mul_grad"}),
)


# -- matmul -------------------------------------------------------------------------------------


def _broadcast_batch(a, b):
    """numpy-style broadcast of two batch shapes (-1 unknown), or None when they clash."""
    rank = max(len(a), len(b))
    a, b = [1] * (rank - len(a)) + list(a), [1] * (rank - len(b)) + list(b)
    out = []
    for m, n in zip(a, b):
        if m == 1 or m == n:
            out.append(n)
        elif n == 1:
            out.append(m)
        elif m < 0 or n < 0:
            out.append(max(m, n))
        else:
            return None
    return out


def matmul_operand_shapes(x, y, attrs):
    """The [..., M, K] and [..., K, N] shapes matmul multiplies: a 1-D X is the row [1, K], a 1-D Y
    the column [K, 1]; the flags swap the last two dims (a 1-D operand's too in Fluid 1.8's matmul,
    not in matmul_v2: shapes/linalg.py matmul_flag)."""
    xm = [1] + list(x) if len(x) == 1 else list(x)
    ym = list(y) + [1] if len(y) == 1 else list(y)
    if matmul_flag(attrs, True):
        xm[-2], xm[-1] = xm[-1], xm[-2]
    if matmul_flag(attrs, False):
        ym[-2], ym[-1] = ym[-1], ym[-2]
    return xm, ym


def _infer_matmul(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    a = ctx.attrs if "transpose_X" in ctx.attrs else matmul_v1_attrs(ctx.attrs, len(x or ()), len(y or ()))
    tx, ty = a["transpose_X"], a["transpose_Y"]
    if not x or not y:
        ctx.fail(f"matmul needs inputs of rank >= 1, got X {fmt_shape(x)} and Y {fmt_shape(y)}")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
    xm, ym = matmul_operand_shapes(x, y, a)
    desc = (
        f"X {fmt_shape(x)}{' (transposed)' if tx and len(x) > 1 else ''} and "
        f"Y {fmt_shape(y)}{' (transposed)' if ty and len(y) > 1 else ''}"
    )
    if a.get("head_number", 1) > 1:
        return _infer_matmul_heads(ctx, xm, ym, desc)
    if xm[-1] >= 0 and ym[-2] >= 0 and xm[-1] != ym[-2]:
        ctx.fail(f"{desc} cannot multiply: X's columns ({xm[-1]}) != Y's rows ({ym[-2]})")
    batch = _broadcast_batch(xm[:-2], ym[:-2])
    if batch is None:
        ctx.fail(f"{desc}: batch dims {fmt_shape(xm[:-2])} and {fmt_shape(ym[:-2])} cannot broadcast")
    out = batch + [xm[-2], ym[-1]]
    if len(x) == 1 and out[-2] == 1:  # a 1-D operand's dim of 1 is dropped (Fluid's rule)
        del out[-2]
    if len(y) == 1 and out[-1] == 1:
        del out[-1]
    fused = matmul_fused_out(a, out)
    if isinstance(fused, str):
        ctx.fail(fused)
    ctx.set_output("Out", fused or out or ctx.scalar_shape(), ctx.dtype("X"))  # (matmul_v2's vectors: 0-D in 2.x)


def _infer_matmul_heads(ctx, xm, ym, desc):
    """Fluid 1.8's multi-head matmul: X [.., M, K] with K in head_number blocks, each times Y's block of
    rows (Y [.., K, N]: Out [.., M, head_number * N]) or of columns (Y [.., K / head_number, N]: Out [.., M, N])."""
    h = ctx.attrs["head_number"]
    if len(xm) != len(ym) or len(xm) not in (2, 3) or len(ctx.shape("X")) == 1 or len(ctx.shape("Y")) == 1:
        ctx.fail(f"head_number={h}: {desc} must both be of rank 2 or both of rank 3")
    if min(xm[-1], ym[-2], ym[-1]) < 0:  # (Fluid checks the heads when the op runs)
        ctx.set_output("Out", xm[:-1] + [-1], ctx.dtype("X"))
        return
    if xm[-1] % h or (ym[-2] != xm[-1] and (ym[-2] * h != xm[-1] or ym[-1] % h)):
        ctx.fail(
            f"head_number={h}: {desc} cannot multiply by heads: X's columns ({xm[-1]}) must split in "
            f"{h} and Y's rows be as many ({ym[-2]}) or one block's, with Y's columns ({ym[-1]}) split in {h}"
        )
    if len(xm) == 3 and xm[0] >= 0 and ym[0] >= 0 and xm[0] != ym[0]:
        ctx.fail(f"head_number={h}: {desc}: batch dims {xm[0]} and {ym[0]} differ")
    width = ym[-1] * h if ym[-2] == xm[-1] else ym[-1]
    ctx.set_output("Out", xm[:-1] + [width], ctx.dtype("X"))


def _operand_ranks(g):
    """The ranks of a matmul_v2's X and Y, which its matmul_grad's flags follow (matmul_v1_attrs); a
    flag on an operand whose rank the program does not say is refused, not guessed."""
    ranks = []
    for slot, flag in (("X", "trans_x"), ("Y", "trans_y")):
        shape = g.fwd.block._find_var_recursive(g.input(slot)[0]).shape
        if shape is None and g.attrs[flag]:
            raise ShapeError(f"{g.fwd.describe()}: {flag}=True on {slot} '{g.input(slot)[0]}', whose rank is unknown")
        ranks.append(None if shape is None else len(shape))
    return ranks


def _grad_matmul(g):
    """Fluid's one ``matmul_grad``: X@GRAD and Y@GRAD, each written where that input needs a gradient."""
    ins = {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")}
    attrs = g.attrs if "transpose_X" in g.attrs else matmul_v1_attrs(g.attrs, *_operand_ranks(g))  # matmul_v2's
    g.op("matmul_grad", ins, {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")}, attrs)


_BOOL = (False, True)
_MATMUL_ATTRS = {
    "transpose_X": Attr(False, choices=_BOOL),
    "transpose_Y": Attr(False, choices=_BOOL),
    "alpha": Attr(1.0, real_number, "a number"),
    # Fluid 1.8's multi-head matmul (_infer_matmul_heads)
    "head_number": Attr(1, is_int, "an int (> 1: heads; else one)"),
    # Fluid's oneDNN inference pass's: a transpose + reshape of Out fused in (empty: none;
    # shapes/linalg.py matmul_fused_out), int8 scales (nothing, as in Fluid's plain kernel)
    "fused_reshape_Out": Attr([]),
    "fused_transpose_Out": Attr([]),
    # declared (not a backend switch here): with the fused transpose it moves Out's values
    "use_mkldnn": Attr(False, choices=_BOOL),
    **backend_attrs("use_quantizer", "Scale_x", "Scale_y", "Scale_out", "force_fp32_output"),
}
register(
    "matmul",
    kernel_module="linalg",
    grad_reads=("X", "Y"),
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs=_MATMUL_ATTRS,
    infer=_infer_matmul,
    grad=_grad_matmul,
    structured=Structured(meta=matmul_rules.matmul_meta, cpu=cpu_matmul.MATMUL),
    doc="Out = alpha * op(X) @ op(Y), op transposing the last two dims when asked; leading (batch) "
    "dims broadcast; a 1-D X is a row vector and a 1-D Y a column vector, and the dim they add "
    "is removed from Out. head_number > 1: X's columns in that many blocks, each times Y's block "
    "of rows (Out's columns head_number times Y's) or of columns (as many as Y's). fused_transpose_Out "
    "[0, 2, 1, 3] with fused_reshape_Out (Fluid's oneDNN fuse): Out is the [B, H, M, N] product "
    "transposed to [B, M, H, N] (with use_mkldnn, as Fluid's oneDNN kernel; without it Fluid's plain "
    "kernel leaves it in place) and reshaped (0 copies a dim). The int8 attributes of Fluid's oneDNN "
    "kernel (use_quantizer, Scale_*, force_fp32_output) change nothing, as in its plain CPU kernel.",
)
register(
    "matmul_v2",
    kernel_module="linalg",
    grad_reads=("X", "Y"),
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs={"trans_x": Attr(False, choices=_BOOL), "trans_y": Attr(False, choices=_BOOL)},
    infer=_infer_matmul,
    grad=_grad_matmul,
    structured=Structured(meta=matmul_rules.matmul_v2_meta, cpu=cpu_matmul.MATMUL),
    traits=("result_0d_in_paddle2",),
    doc="Fluid 1.8's matmul_v2 (paddle.matmul): matmul with transpose_X=trans_x, transpose_Y=trans_y, "
    "alpha 1; the same broadcasting and 1-D rules, kernels and gradients (two vectors: 0-D in a Paddle 2.x "
    "program, as Paddle 2.6's).",
)
_MATMUL_GRAD_GRAD = grad_of_bilinear_grad("matmul", "X", "Y", "Out", {"X": "matmul_grad", "Y": "matmul_grad"})
register(
    "matmul_grad",
    kernel_module="linalg",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    attrs=_MATMUL_ATTRS,
    infer=grads_like({"X@GRAD": "X", "Y@GRAD": "Y"}),
    traits=("optional_outputs",),
    structured=Structured(meta=matmul_rules.matmul_grad_meta, cpu=cpu_matmul.MATMUL_GRAD),
    grad=_MATMUL_GRAD_GRAD,
)
# (matmul_grad_x / matmul_grad_y: each half of it, as pe wrote them in programs it saved before)
register(
    "matmul_grad_x",
    kernel_module="linalg",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_MATMUL_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=matmul_rules.matmul_grad_x_meta, cpu=cpu_matmul.MATMUL_GRAD),
    grad=_MATMUL_GRAD_GRAD,
)
register(
    "matmul_grad_y",
    kernel_module="linalg",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["Y@GRAD"],
    attrs=_MATMUL_ATTRS,
    infer=grads_like({"Y@GRAD": "Y"}),
    structured=Structured(meta=matmul_rules.matmul_grad_y_meta, cpu=cpu_matmul.MATMUL_GRAD),
    grad=_MATMUL_GRAD_GRAD,
)


# -- inverse, cholesky: of square matrices -------------------------------------------------------


def _infer_square(op, slot_in, slot_out):
    """The infer of an op taking float square matrices in ``slot_in``'s last two dims, out alike."""

    def infer(ctx):
        x = ctx.shape(slot_in)
        if len(x) < 2 or (x[-1] >= 0 and x[-2] >= 0 and x[-1] != x[-2]):
            ctx.fail(f"{slot_in} {fmt_shape(x)} must hold square matrices in its last two dims")
        if ctx.dtype(slot_in) not in ("float32", "float64"):
            ctx.fail(f"{slot_in} is {ctx.dtype(slot_in)}; {op} takes float32 or float64")
        ctx.set_output(slot_out, x, ctx.dtype(slot_in))

    return infer


def _grad_inverse(g):
    """dInput = -Output^T @ dOutput @ Output^T, as two matmuls."""
    out = g.output("Output")
    left = g.tmp(out[0], "inverse")
    g.op(
        "matmul",
        {"X": out, "Y": g.out_grad("Output")},
        {"Out": [left]},
        {"transpose_X": True, "transpose_Y": False, "alpha": 1.0},
    )
    g.op(
        "matmul",
        {"X": [left], "Y": out},
        {"Out": g.in_grad("Input")},
        {"transpose_X": False, "transpose_Y": True, "alpha": -1.0},
    )


register(
    "inverse",
    kernel_module="linalg",
    inputs=["Input"],
    outputs=["Output"],
    infer=_infer_square("inverse", "Input", "Output"),
    grad=_grad_inverse,
    grad_reads=("Output",),
    lod="drop",
    doc="Output = the inverse of each square matrix in Input's last two dims (Gauss-Jordan with partial "
    "pivoting; a singular matrix is an error). The gradient is -Output^T dOutput Output^T.",
    structured=Structured(meta=lapack_rules.inverse_meta, cpu=cpu_linalg.OUT["inverse"]),
)


def _grad_cholesky(g):
    """Fluid 1.8's one cholesky_grad op, reading Out and Out@GRAD (no gradient of its own, as Fluid's)."""
    g.op(
        "cholesky_grad",
        {"Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        {"upper": g.attrs["upper"]},
    )


register(
    "cholesky",
    kernel_module="linalg",
    inputs=["X"],
    outputs=["Out"],
    attrs={"upper": Attr(False, choices=(False, True))},
    infer=_infer_square("cholesky", "X", "Out"),
    grad=_grad_cholesky,
    grad_reads=("Out",),
    lod="drop",
    doc="Out = L with L L^T = X (lower), or U = L^T (upper), for each symmetric positive-definite matrix "
    "in X's last two dims (X is read as (X + X^T) / 2; one that is not positive definite is an error).",
    structured=Structured(meta=lapack_rules.cholesky_meta, cpu=cpu_linalg.OUT["cholesky"]),
)
register(
    "cholesky_grad",
    kernel_module="linalg",
    inputs=["Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs={"upper": Attr(False, choices=(False, True))},
    infer=grads_like({"X@GRAD": "Out"}),
    doc="X@GRAD = sym(L^-T Phi(L^T dL) L^-1) (L = Out, or Out^T when upper; Phi: the lower triangle with "
    "its diagonal halved; sym(S) = (S + S^T) / 2; Murray, 2016).",
    structured=Structured(meta=lapack_rules.cholesky_grad_meta, cpu=cpu_linalg.OUT["cholesky_grad"]),
)


# -- spectral_norm (Fluid 1.8): a weight divided by its largest singular value ------------------------


def _infer_spectral_norm(ctx):
    w, dim = ctx.shape("Weight"), ctx.attrs["dim"]
    if not -len(w) <= dim < len(w) or len(w) < 2:
        ctx.fail(f"dim={dim} must name a dim of Weight {fmt_shape(w)} (at least 2-D)")
    h = w[dim]
    rest = known_numel([d for i, d in enumerate(w) if i != dim % len(w)])
    for slot, n in (("U", h), ("V", rest)):
        s = ctx.shape(slot)
        if len(s) != 1 or (n >= 0 and s[0] >= 0 and s[0] != n):
            ctx.fail(f"{slot} {fmt_shape(s)} must be [{n}] for Weight {fmt_shape(w)} normalized along dim {dim}")
    ctx.set_output("Out", w, ctx.dtype("Weight"))


def _grad_spectral_norm(g):
    g.op(
        "spectral_norm_grad",
        {"Weight": g.input("Weight"), "U": g.input("U"), "V": g.input("V"), "Out@GRAD": g.out_grad("Out")},
        {"Weight@GRAD": g.in_grad("Weight")},
        g.attrs,
    )


_SN_ATTRS = {
    "dim": Attr(0, lambda v: isinstance(v, int), "an int"),
    "power_iters": Attr(1, lambda v: isinstance(v, int) and v >= 0, "an int >= 0"),
    "eps": Attr(1e-12, real_number, "a number"),
}
register(
    "spectral_norm",
    kernel_module="linalg",
    inputs=["Weight", "U", "V"],
    outputs=["Out"],
    attrs=_SN_ATTRS,
    infer=_infer_spectral_norm,
    grad=_grad_spectral_norm,
    grad_reads=("U", "V", "Weight"),
    lod="drop",
    doc="W = Weight as a matrix [shape[dim], rest]; from U and V (left as they are), power_iters steps "
    "v = W^T u / (|W^T u| + eps), u = W v / (|W v| + eps); Out = Weight / (u^T W v). The gradient "
    "takes u and v as constants: (Out@GRAD - sum(Out@GRAD * Out) u v^T) / sigma.",
    structured=Structured(meta=lapack_rules.spectral_norm_meta, cpu=cpu_linalg.OUT["spectral_norm"]),
)
register(
    "spectral_norm_grad",
    kernel_module="linalg",
    inputs=["Weight", "U", "V", "Out@GRAD"],
    outputs=["Weight@GRAD"],
    attrs=_SN_ATTRS,
    infer=grads_like({"Weight@GRAD": "Weight"}),
    structured=Structured(meta=lapack_rules.spectral_norm_grad_meta, cpu=cpu_linalg.OUT["spectral_norm_grad"]),
)
