"""``paddle.linalg``: Paddle 2.6's linear algebra module in static mode. ``svd`` and ``lstsq`` are ops
of their own (ops/linalg_decomposition.py); ``pinv``, ``cond``, ``matrix_rank``, ``multi_dot`` and
``matrix_power`` are built from them and pe's matmul, inverse and reductions as Paddle builds them;
``inv``, ``cholesky`` and ``norm`` are the top-level functions; det, slogdet, eigh, eigvalsh, eig, eigvals,
qr, lu, lu_unpack, solve, triangular_solve and cholesky_solve are one op each (linalg_ops.py). cov,
corrcoef, householder_product and pca_lowrank are one-line refusals."""

import math

import numpy as np

from .. import layers as L
from ..base.errors import unsupported
from ..framework.variable import Variable
from ..layers.checks import check_type, check_variable_and_dtype
from ..layers.helper import LayerHelper
from .linalg_ops import (  # noqa: F401 -- one op each, as Paddle builds them
    cholesky_solve,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    lu,
    lu_unpack,
    qr,
    slogdet,
    solve,
    triangular_solve,
)
from .tensor_linalg import cholesky, inverse
from .tensor_math import matmul, norm
from ..framework.program_release import paddle_face

__all__ = [
    "cholesky",
    "norm",
    "cond",
    "inv",
    "multi_dot",
    "matrix_rank",
    "svd",
    "pinv",
    "matrix_power",
    "lstsq",
    "cov",
    "corrcoef",
    "eig",
    "eigvals",
    "qr",
    "householder_product",
    "pca_lowrank",
    "lu",
    "lu_unpack",
    "det",
    "slogdet",
    "eigh",
    "eigvalsh",
    "solve",
    "cholesky_solve",
    "triangular_solve",
]

inv = inverse
_NO_OP = "pe has no op for this decomposition yet"
cov = unsupported("paddle.linalg.cov", _NO_OP)
corrcoef = unsupported("paddle.linalg.corrcoef", _NO_OP)
householder_product = unsupported("paddle.linalg.householder_product", _NO_OP)
pca_lowrank = unsupported("paddle.linalg.pca_lowrank", _NO_OP)


def _check_matrix(fn, x):
    if not isinstance(x, Variable):
        raise TypeError(f"paddle.linalg.{fn}: x must be a Tensor, got {type(x).__name__}")
    if len(x.shape) < 2:
        raise ValueError(f"paddle.linalg.{fn}: x must be (*, M, N), at least 2-D; got shape {list(x.shape)}")
    if x.dtype not in ("float32", "float64"):
        raise TypeError(f"paddle.linalg.{fn}: x must be float32 or float64, got {x.dtype}")


def _swap_last(x):
    perm = list(range(len(x.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return L.transpose(x, perm)


def svd(x, full_matrices=False, name=None):
    """(U, S, VH) with x = U diag(S) VH for each matrix in x's last two dims, S descending."""
    _check_matrix("svd", x)
    helper = LayerHelper("svd", x=x, name=name)
    u, s, vh = (helper.create_variable_for_type_inference(x.dtype) for _ in range(3))
    helper.append_op("svd", {"X": [x]}, {"U": [u], "S": [s], "VH": [vh]}, {"full_matrices": bool(full_matrices)})
    return u, s, vh


def _singular_values(x):
    return svd(x)[1]


@paddle_face
def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """The pseudo-inverse V diag(1/s) U^T of each matrix, singular values at most ``rcond`` times the
    largest taken as zero (numpy's pinv; a Hermitian x gives the same through its SVD)."""
    _check_matrix("pinv", x)
    u, s, vh = svd(x)
    cutoff = L.scale(L.reduce_max(s, dim=-1, keep_dim=True), scale=float(rcond))
    kept = L.greater_than(s, cutoff)
    safe = L.elementwise_add(L.elementwise_mul(s, L.cast(kept, s.dtype)), L.cast(L.logical_not(kept), s.dtype))
    s_inv = L.elementwise_mul(L.reciprocal(safe), L.cast(kept, s.dtype))
    v_scaled = L.elementwise_mul(_swap_last(vh), L.unsqueeze(s_inv, [len(s.shape) - 1]))
    return matmul(v_scaled, u, transpose_y=True, name=name)


def _reduce(fn, x, dims):
    return fn(x, dim=dims, keep_dim=False)


def _mat_norm(x, p):
    """1 / -1: the largest / smallest column sum of |x|; inf / -inf: the same of rows."""
    sums = _reduce(L.reduce_sum, L.abs(x), [-2] if p in (1, -1) else [-1])
    return _reduce(L.reduce_max if p > 0 else L.reduce_min, sums, [-1])


def _fro(x):
    return L.sqrt(_reduce(L.reduce_sum, L.square(x), [-2, -1]))


def _cond_square(x, p):
    x_inv = inverse(x)
    if p == "fro":
        return L.elementwise_mul(_fro(x), _fro(x_inv))
    if p == "nuc":
        return L.elementwise_mul(
            _reduce(L.reduce_sum, _singular_values(x), [-1]), _reduce(L.reduce_sum, _singular_values(x_inv), [-1])
        )
    return L.elementwise_mul(_mat_norm(x, p), _mat_norm(x_inv, p))


@paddle_face
def cond(x, p=None, name=None):
    """The condition number of each matrix for norm ``p``: None or 2 (largest over smallest singular
    value), -2 (the inverse), or, of square matrices, 'fro', 'nuc', 1, -1, inf, -inf (norm(x) times
    norm(x^-1)). Static mode takes only non-empty x, as Paddle's."""
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError(f"paddle.linalg.cond: x must be (*, M, N); got {len(shape)} dims")
    p = 2 if p is None else p
    if isinstance(p, str):
        valid = p in ("fro", "nuc")
    else:
        valid = isinstance(p, (int, float)) and not isinstance(p, bool) and p in (1, -1, 2, -2, math.inf, -math.inf)
    if not valid:
        raise ValueError(
            f"paddle.linalg.cond: unsupported {p} for p, only supporting ('fro', 'nuc', 1, -1, 2, -2, "
            "inf, -inf) or none"
        )
    if p not in (2, -2) and shape[-1] != shape[-2]:
        raise ValueError(f"paddle.linalg.cond: p={p} needs square matrices, got shape {shape}")
    if 0 in shape:
        raise ValueError("paddle.linalg.cond: only support x is nonempty tensor in static graph mode")
    _check_matrix("cond", x)
    if p in (2, -2):
        s = _singular_values(x)
        big, small = _reduce(L.reduce_max, s, [-1]), _reduce(L.reduce_min, s, [-1])
        return L.elementwise_div(big, small) if p == 2 else L.elementwise_div(small, big)
    return _cond_square(x, p)


@paddle_face
def matrix_rank(x, tol=None, hermitian=False, name=None):
    """The number of singular values (hermitian: |eigenvalues|) of each matrix above ``tol``: a number, a Tensor (a
    tolerance per matrix, broadcast with x's batch dims: TolTensor), or None (the largest value times max(M, N)
    times the dtype's epsilon). Paddle 2.6's matrix_rank op, with its checks; int32 as Paddle 2.6 gives it."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "matrix_rank")
    inputs, attrs = {"X": [x]}, {"use_default_tol": tol is None}
    if isinstance(tol, Variable):
        inputs["TolTensor"] = [tol if tol.dtype == x.dtype else L.cast(tol, x.dtype)]
    elif tol is not None:
        check_type(tol, "tol", float, "matrix_rank")
        attrs["tol"] = tol
    check_type(hermitian, "hermitian", bool, "matrix_rank")
    attrs["hermitian"] = hermitian
    helper = LayerHelper("matrix_rank", x=x, name=name)
    out = helper.create_variable_for_type_inference("int64")
    helper.append_op("matrix_rank", inputs, {"Out": [out]}, attrs)
    return L.cast(out, "int32")


def multi_dot(x, name=None):
    """x[0] @ x[1] @ ... (a first or last 1-D tensor is a row or a column vector)."""
    if not isinstance(x, (list, tuple)) or len(x) < 2:
        raise ValueError("paddle.linalg.multi_dot: x must be a list of at least two Tensors")
    out = x[0]
    for y in x[1:]:
        out = matmul(out, y)
    return out


def matrix_power(x, n, name=None):
    """x to the integer power n for square matrices (n < 0: of the inverse; 0: the identity)."""
    _check_matrix("matrix_power", x)
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"paddle.linalg.matrix_power: n must be an int, got {n!r}")
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"paddle.linalg.matrix_power: x must hold square matrices, got shape {list(x.shape)}")
    base = inverse(x) if n < 0 else x
    if n == 0:
        eye = L.eye(int(x.shape[-1]), dtype=x.dtype)
        return L.elementwise_add(L.elementwise_mul(x, L.fill_constant([1], x.dtype, 0.0)), eye)
    out = base
    for _ in range(abs(n) - 1):
        out = matmul(out, base)
    return out


def lstsq(x, y, rcond=None, driver=None, name=None):
    """(solution, residuals, rank, singular_values) of the least-squares problems x solution = y
    (Paddle's drivers on the CPU: gels, gelsd, gelss, gelsy, the default; all solve as numpy's lstsq,
    and the driver decides which of rank and singular_values are empty, as in Paddle)."""
    if driver not in (None, "gels", "gelss", "gelsd", "gelsy"):
        raise ValueError(
            f"Only support valid driver is 'gels', 'gelss', 'gelsd', 'gelsy' or None for CPU inputs. But got {driver}"
        )
    driver = driver or "gelsy"
    if not (x.dtype == y.dtype and x.dtype in ("float32", "float64")):
        raise ValueError("Only support x and y have the same dtype such as 'float32' and 'float64'.")
    if len(x.shape) < 2:
        raise ValueError(f"The shape of x should be (*, M, N), but received ndim is [{len(x.shape)} < 2]")
    if len(y.shape) < 2:
        raise ValueError(f"The shape of y should be (*, M, K), but received ndim is [{len(y.shape)} < 2]")
    if x.shape[-2] != y.shape[-2]:
        raise ValueError(
            f"x with shape (*, M = {x.shape[-2]}, N) and y with shape (*, M = {y.shape[-2]}, K) should have same M."
        )
    if rcond is None:
        rcond = (1e-7 if x.dtype == "float32" else 1e-15) * max(x.shape[-2], x.shape[-1])
    helper = LayerHelper("lstsq", x=x, name=name)
    outs = {
        "Solution": helper.create_variable_for_type_inference(x.dtype),
        "Residuals": helper.create_variable_for_type_inference(x.dtype),
        "Rank": helper.create_variable_for_type_inference("int32"),
        "SingularValues": helper.create_variable_for_type_inference(x.dtype),
    }
    helper.append_op(
        "lstsq", {"X": [x], "Y": [y]}, {k: [v] for k, v in outs.items()}, {"rcond": float(rcond), "driver": driver}
    )
    return tuple(outs.values())
