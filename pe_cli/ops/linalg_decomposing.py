"""Paddle 2.x's matrix decompositions over batches, under Paddle 2.6's op types: matrix_rank (singular values
above tol, or max(m, n) * the largest * float eps by default; hermitian: eigenvalues), eigh / eigvalsh (of the
symmetric matrix from the lower or upper triangle, UPLO; ascending), eig / eigvals (general matrices,
complex results), qr (reduced / complete / r), lu (partial
pivoting, LAPACK's getrf: Out holds L below the diagonal and U, Pivots 1-based) and lu_unpack (P, L, U back).
numpy's LAPACK (kernels/<device>/linalg_decomposing.py); gradients: eigh's, eigvalsh's and qr's."""

from ..base.broadcast_shapes import broadcast
from ..base.errors import PeError
from ..kernels.cpu import linalg_decomposing as cpu_decomposing
from ..shapes import linalg_decompositions as rules
from .define import Attr, Structured, fmt_shape, grads_like, register
from .pointwise_math import QUANT


def _matrices(ctx, slot="X", square=False):
    x = ctx.shape(slot)
    if len(x) < 2 or (square and x[-1] >= 0 and x[-2] >= 0 and x[-1] != x[-2]):
        ctx.fail(f"{slot} {fmt_shape(x)} must be {'square ' if square else ''}matrices [..., m, n]")
    return list(x)


def _refuse_grad(op, why):
    def grad(g):
        raise PeError(
            f"{op}: pe does not compute its gradient ({why}); keep it out of the backward pass (stop_gradient)"
        )

    return grad


def _infer_rank(ctx):
    x = _matrices(ctx, square=ctx.attrs["hermitian"])
    if not ctx.has_input("TolTensor"):
        return ctx.set_output("Out", x[:-2], "int64")
    out = broadcast((x[:-2], ctx.shape("TolTensor")))  # (a tolerance per matrix: Paddle's MatrixRankTolInferMeta)
    if out is None:
        ctx.fail(f"TolTensor {fmt_shape(ctx.shape('TolTensor'))} does not broadcast with X's batch {fmt_shape(x[:-2])}")
    ctx.set_output("Out", out, "int64")


register(
    "matrix_rank",
    kernel_module="linalg_decomposing",
    inputs=["X", "TolTensor?"],
    outputs=["Out"],
    lod="drop",
    attrs={
        "tol": Attr(0.0),
        "hermitian": Attr(False, choices=(False, True)),
        "use_default_tol": Attr(True, choices=(False, True)),
        **QUANT,
    },
    infer=_infer_rank,
    doc="Out = the number of singular values (hermitian: |eigenvalues|) of each matrix above tol "
    "(use_default_tol: max(m, n) * the dtype's eps * the largest), or above TolTensor's value for it (a tensor "
    "broadcast with X's batch dims, Out of their shape; the larger of it and the default where use_default_tol): "
    "Paddle 2.6's MatrixRankTolKernel.",
    structured=Structured(meta=rules.matrix_rank_meta, cpu=cpu_decomposing.OUT["matrix_rank"]),
)


def _infer_eigh(ctx):
    x = _matrices(ctx, square=True)
    real = {"complex64": "float32", "complex128": "float64"}.get(ctx.dtype("X"), ctx.dtype("X"))
    ctx.set_output("Eigenvalues", x[:-1], real)  # real, of Hermitian X too
    ctx.set_output("Eigenvectors", x, ctx.dtype("X"))


def _grad_eigh(name):
    def grad(g):
        g.op(
            f"{name}_grad",
            {
                "Eigenvalues": g.output("Eigenvalues"),
                "Eigenvectors": g.output("Eigenvectors"),
                **{f"{s}@GRAD": g.out_grad(s) for s in ("Eigenvalues", "Eigenvectors") if g.has_out_grad(s)},
            },
            {"X@GRAD": g.in_grad("X")},
            g.attrs,
        )

    return grad


def _infer_eigh_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("Eigenvectors"), ctx.dtype("Eigenvectors"))


for _name, _extra in (("eigh", {}), ("eigvalsh", {"is_test": Attr(False, choices=(False, True))})):
    _attrs = {"UPLO": Attr("L", choices=("L", "U")), **_extra, **QUANT}
    register(
        _name,
        kernel_module="linalg_decomposing",
        inputs=["X"],
        outputs=["Eigenvalues", "Eigenvectors"],
        attrs=_attrs,
        infer=_infer_eigh,
        grad=_grad_eigh(_name),
        grad_reads=("Eigenvalues", "Eigenvectors"),
        lod="drop",
        doc="Eigenvalues (ascending) and Eigenvectors (columns) of the symmetric matrices X's "
        "UPLO triangle gives (eigvalsh: Paddle writes Eigenvectors too, for its gradient).",
        structured=Structured(meta=rules.eigh_meta, cpu=cpu_decomposing.OUT[_name]),
    )
    register(
        f"{_name}_grad",
        kernel_module="linalg_decomposing",
        inputs=["Eigenvalues", "Eigenvectors", "Eigenvalues@GRAD?", "Eigenvectors@GRAD?"],
        outputs=["X@GRAD"],
        attrs=_attrs,
        infer=_infer_eigh_grad,
        lod="drop",
        structured=Structured(meta=getattr(rules, f"{_name}_grad_meta"), cpu=cpu_decomposing.OUT[f"{_name}_grad"]),
    )


def _infer_qr(ctx):
    x = _matrices(ctx)
    m, n = x[-2], x[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    mode = ctx.attrs["mode"]
    ctx.set_output("Q", x[:-2] + ([m, m] if mode == "complete" else [m, k]) if mode != "r" else [0], ctx.dtype("X"))
    ctx.set_output("R", x[:-2] + ([m, n] if mode == "complete" else [k, n]), ctx.dtype("X"))


def _grad_qr(g):
    g.op(
        "qr_grad",
        {
            "X": g.input("X"),
            "Q": g.output("Q"),
            "R": g.output("R"),
            **{f"{s}@GRAD": g.out_grad(s) for s in ("Q", "R") if g.has_out_grad(s)},
        },
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_QR_ATTRS = {"mode": Attr("reduced", choices=("reduced", "complete", "r")), **QUANT}
register(
    "qr",
    kernel_module="linalg_decomposing",
    inputs=["X"],
    outputs=["Q", "R"],
    attrs=_QR_ATTRS,
    infer=_infer_qr,
    grad=_grad_qr,
    grad_reads=("X", "Q", "R"),
    lod="drop",
    doc="Q, R = the QR decomposition of each matrix (LAPACK's Householder signs); mode reduced, complete, or r "
    "(R alone).",
    structured=Structured(meta=rules.qr_meta, cpu=cpu_decomposing.OUT["qr"]),
)
register(
    "qr_grad",
    kernel_module="linalg_decomposing",
    inputs=["X", "Q", "R", "Q@GRAD?", "R@GRAD?"],
    outputs=["X@GRAD"],
    attrs=_QR_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
    structured=Structured(meta=rules.qr_grad_meta, cpu=cpu_decomposing.OUT["qr_grad"]),
)


def _infer_lu(ctx):
    x = _matrices(ctx)
    k = min(x[-2], x[-1]) if x[-2] >= 0 and x[-1] >= 0 else -1
    ctx.set_output("Out", x, ctx.dtype("X"))
    ctx.set_output("Pivots", x[:-2] + [k], "int32")
    ctx.set_output("Infos", x[:-2] or [1], "int32")


register(
    "lu",
    kernel_module="linalg_decomposing",
    inputs=["X"],
    outputs=["Out", "Pivots", "Infos"],
    lod="drop",
    attrs={"pivots": Attr(True, choices=(True,)), **QUANT},
    infer=_infer_lu,
    grad=_refuse_grad("lu", "Paddle 2.6 has one, pe not yet"),
    doc="Out = L (below the diagonal, unit diagonal implied) and U of each matrix's LU with partial pivoting; "
    "Pivots: the 1-based rows swapped (LAPACK's getrf); Infos: getrf's info (0: nonsingular).",
    structured=Structured(meta=rules.lu_meta, cpu=cpu_decomposing.OUT["lu"]),
)


def _infer_lu_unpack(ctx):
    x = _matrices(ctx)
    m, n = x[-2], x[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    ctx.set_output("Pmat", x[:-2] + [m, m], ctx.dtype("X"))
    ctx.set_output("L", x[:-2] + [m, k], ctx.dtype("X"))
    ctx.set_output("U", x[:-2] + [k, n], ctx.dtype("X"))


register(
    "lu_unpack",
    kernel_module="linalg_decomposing",
    inputs=["X", "Pivots"],
    outputs=["Pmat", "L", "U"],
    lod="drop",
    attrs={"unpack_ludata": Attr(True, choices=(True,)), "unpack_pivots": Attr(True, choices=(True,)), **QUANT},
    infer=_infer_lu_unpack,
    grad=_refuse_grad("lu_unpack", "Paddle 2.6 has one, pe not yet"),
    doc="Pmat, L, U of lu's Out and Pivots: X = Pmat L U.",
    structured=Structured(meta=rules.lu_unpack_meta, cpu=cpu_decomposing.OUT["lu_unpack"]),
)


def _infer_eig(ctx):
    x = _matrices(ctx, square=True)
    dtype = {"float32": "complex64", "float64": "complex128"}.get(ctx.dtype("X"), ctx.dtype("X"))
    if ctx.op.type == "eigvals":
        ctx.set_output("Out", x[:-1], dtype)
        return
    ctx.set_output("Eigenvalues", x[:-1], dtype)
    ctx.set_output("Eigenvectors", x, dtype)


_refuse_eig = _refuse_grad("eig", "complex eigenvectors")


register(
    "eig",
    kernel_module="linalg_decomposing",
    inputs=["X"],
    outputs=["Eigenvalues", "Eigenvectors"],
    attrs=dict(QUANT),
    infer=_infer_eig,
    grad=_refuse_eig,
    lod="drop",
    doc="Eigenvalues and (unit, LAPACK geev's) Eigenvectors of general square matrices, complex; the "
    "gradient is refused.",
    structured=Structured(meta=rules.eig_meta, cpu=cpu_decomposing.OUT["eig"]),
)
register(
    "eigvals",
    kernel_module="linalg_decomposing",
    inputs=["X"],
    outputs=["Out"],
    attrs=dict(QUANT),
    infer=_infer_eig,
    lod="drop",
    doc="Out = the eigenvalues of general square matrices (complex, LAPACK's order).",
    structured=Structured(meta=rules.eigvals_meta, cpu=cpu_decomposing.OUT["eigvals"]),
)
