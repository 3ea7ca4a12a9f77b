"""The ``paddle.linalg`` functions that are one op each, built as Paddle 2.6's static mode builds them:
det (determinant), slogdet (slogdeterminant), eigh, eigvalsh, eig, eigvals, qr, lu, lu_unpack, solve,
triangular_solve and cholesky_solve, with Paddle's argument checks (its errors' types and wording); the
ops' meta steps and kernels are ops/linalg_solve.py and ops/linalg_decomposing.py."""

from ..framework.variable import Variable
from ..layers.helper import LayerHelper

FLOATS = ("float32", "float64")
COMPLEX_TOO = FLOATS + ("complex64", "complex128")


def _check(fn, x, arg, dtypes):
    if not isinstance(x, Variable):
        raise TypeError(f"The type of '{arg}' in {fn} must be Variable, but received {type(x).__name__}.")
    if x.dtype not in dtypes:
        raise TypeError(f"The data type of '{arg}' in {fn} must be one of {list(dtypes)}, but received {x.dtype}.")


def _one(op, inputs, dtype, attrs=None, out="Out", name=None):
    helper = LayerHelper(op, name=name)
    var = helper.create_variable_for_type_inference(dtype)
    helper.append_op(op, inputs, {out: [var]}, attrs or {})
    return var


def _square_asserted(fn, x):
    shape = list(x.shape)
    assert len(shape) >= 2, f"paddle.linalg.{fn}: x must be at least 2-dimensional, got {len(shape)} dims"
    assert shape[-1] == shape[-2], f"paddle.linalg.{fn}: expects square matrices, got {shape[-2]} by {shape[-1]}"


def det(x, name=None):
    """The determinant of each square matrix in x's last two dims (a 0-D Tensor for one matrix)."""
    _check("det", x, "Input", ("float16",) + FLOATS)
    _square_asserted("det", x)
    return _one("determinant", {"Input": [x]}, x.dtype, name=name)


def slogdet(x, name=None):
    """[sign(det), log|det|] of each square matrix, stacked first: shape [2, *batch]."""
    _check("slogdet", x, "Input", FLOATS)
    _square_asserted("slogdet", x)
    return _one("slogdeterminant", {"Input": [x]}, x.dtype, name=name)


def _check_hermitian(fn, x, uplo):
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError(f"paddle.linalg.{fn}: x must be at least 2-D, got {len(shape)} dims")
    if shape[-1] != shape[-2]:
        raise ValueError(f"paddle.linalg.{fn}: x must be batches of square matrices, got shape {shape}")
    if uplo not in ("L", "U"):
        raise ValueError(f"paddle.linalg.{fn}: UPLO must be L or U, got {uplo!r}")
    _check(fn, x, "dtype", COMPLEX_TOO)


def _eigh_op(op, x, attrs, name):
    helper = LayerHelper(op, name=name)
    values, vectors = (helper.create_variable_for_type_inference(x.dtype) for _ in range(2))
    helper.append_op(op, {"X": [x]}, {"Eigenvalues": [values], "Eigenvectors": [vectors]}, attrs)
    return values, vectors


def eigh(x, UPLO="L", name=None):
    """(eigenvalues ascending, eigenvectors as columns) of the symmetric matrices x's UPLO triangle gives."""
    _check_hermitian("eigh", x, UPLO)
    return _eigh_op("eigh", x, {"UPLO": UPLO}, name)


def eigvalsh(x, UPLO="L", name=None):
    """The eigenvalues (ascending) of the symmetric matrices x's UPLO triangle gives; is_test is
    x.stop_gradient, as Paddle sets it."""
    _check_hermitian("eigvalsh", x, UPLO)
    return _eigh_op("eigvalsh", x, {"UPLO": UPLO, "is_test": bool(x.stop_gradient)}, name)[0]


def eig(x, name=None):
    """(eigenvalues, eigenvectors) of general square matrices, complex (the gradient is refused)."""
    _check("eig", x, "X", COMPLEX_TOO)
    return _eigh_op("eig", x, {}, name)


def eigvals(x, name=None):
    """The eigenvalues of general square matrices, complex, in LAPACK's order."""
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError(f"paddle.linalg.eigvals: x must be at least 2-D, got shape {shape}")
    if shape[-1] != shape[-2]:
        raise ValueError(f"paddle.linalg.eigvals: x's last two dimensions must be equal, got shape {shape}")
    _check("eigvals", x, "dtype", COMPLEX_TOO)
    return _one("eigvals", {"X": [x]}, x.dtype, name=name)


def qr(x, mode="reduced", name=None):
    """(Q, R) of each matrix, or R alone with mode 'r'; mode 'complete' gives square Q."""
    _check("qr", x, "dtype", FLOATS)
    if not isinstance(mode, str):
        raise TypeError(f"The type of 'mode' in qr must be str, but received {type(mode).__name__}.")
    helper = LayerHelper("qr", name=name)
    q, r = (helper.create_variable_for_type_inference(x.dtype) for _ in range(2))
    helper.append_op("qr", {"X": [x]}, {"Q": [q], "R": [r]}, {"mode": mode})
    return r if mode == "r" else (q, r)


def lu(x, pivot=True, get_infos=False, name=None):
    """(LU, Pivots[, Infos]) of each matrix with partial pivoting. Paddle 2.6's static mode hands
    ``pivot`` to an attribute its op does not have, so the op pivots whatever ``pivot`` says; so does pe's."""
    _check("lu", x, "dtype", FLOATS)
    helper = LayerHelper("lu", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    pivots, infos = (helper.create_variable_for_type_inference("int32") for _ in range(2))
    helper.append_op("lu", {"X": [x]}, {"Out": [out], "Pivots": [pivots], "Infos": [infos]}, {})
    return (out, pivots, infos) if get_infos else (out, pivots)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) from lu's LU and Pivots: x = P L U."""
    if len(x.shape) < 2:
        raise ValueError(f"The shape of x should be (*, M, N), but received ndim is [{len(x.shape)} < 2]")
    if len(y.shape) < 1:
        raise ValueError(f"The shape of Pivots should be (*, K), but received ndim is [{len(y.shape)} < 1]")
    _check("lu_unpack", x, "dtype", FLOATS)
    helper = LayerHelper("lu_unpack", name=name)
    p, low, up = (helper.create_variable_for_type_inference(x.dtype) for _ in range(3))
    attrs = {"unpack_ludata": unpack_ludata, "unpack_pivots": unpack_pivots}
    helper.append_op("lu_unpack", {"X": [x], "Pivots": [y]}, {"Pmat": [p], "L": [low], "U": [up]}, attrs)
    return p, low, up


def _check_pair(fn, x, y):
    _check(fn, x, "x", FLOATS)
    _check(fn, y, "y", FLOATS)


def solve(x, y, name=None):
    """x^-1 y for square x (y a vector or matrices, batch dims broadcast)."""
    _check_pair("solve", x, y)
    return _one("solve", {"X": [x], "Y": [y]}, x.dtype, name=name)


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """A^-1 y for A x's upper (lower) triangle, transposed with ``transpose``, a unit diagonal with
    ``unitriangular``."""
    _check_pair("triangular_solve", x, y)
    attrs = {"upper": upper, "transpose": transpose, "unitriangular": unitriangular}
    return _one("triangular_solve", {"X": [x], "Y": [y]}, x.dtype, attrs, name=name)


def cholesky_solve(x, y, upper=False, name=None):
    """(y y^T)^-1 x for y a lower Cholesky factor ((y^T y)^-1 x with ``upper``)."""
    _check_pair("cholesky_solve", x, y)
    return _one("cholesky_solve", {"X": [x], "Y": [y]}, x.dtype, {"upper": upper}, name=name)
