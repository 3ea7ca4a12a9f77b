"""The meta rules (shapes/structured.py) of the matrix decompositions numpy's LAPACK computes: ops/linalg_decomposing.py's
(matrix_rank, eigh, eigvalsh, eig, eigvals, qr, lu, lu_unpack; eigh's, eigvalsh's and qr's gradients) and
ops/linalg_decomposition.py's (svd and its gradient, lstsq). Their CPU out-kernels (kernels/cpu/linalg_decomposing.py,
kernels/cpu/linalg_decomposition.py) are numpy forms with no ``out=``: "numpy" variants, ``fresh``, of the shapes and
dtypes numpy's arrays have as the kernels cast them. A gradient Paddle 2.6 does not define, and lstsq's operands that
do not meet, are refused here with the kernels' one line; other shapes that do not meet are numpy's to refuse, as they
were (-1 for a dim they leave unknown). lstsq's Residuals: their length the values give (-1)."""

import numpy as np

from ..base.errors import PeError
from .linalg_solve import numpy_meta


def _k(shape):
    """min(m, n) of matrices of ``shape`` (-1 below 2-D)."""
    return min(shape[-2:]) if len(shape) >= 2 else -1


def _mn(shape):
    return tuple(shape[-2:]) if len(shape) >= 2 else (-1, -1)


def matrix_rank_meta(attrs, ins, facts):
    """matrix_rank: the count per matrix (int64) of singular values (hermitian: |eigenvalues|) above tol; with
    TolTensor, of X's batch dims and its shape broadcast (numpy's: a 2-D X and a [1, 4] TolTensor give [1, 4])."""
    x, tol = ins["X"], ins.get("TolTensor")
    batch = tuple(x.shape[:-2])
    return numpy_meta({"Out": (batch if tol is None else np.broadcast_shapes(batch, tuple(tol.shape)), np.int64)})


def _real(dtype):
    """A complex dtype's real one (an inexact one's own; another dtype, which the kernel refuses, as it is)."""
    dtype = np.dtype(dtype)
    return np.finfo(dtype).dtype if dtype.kind in "fc" else dtype


def _complex(dtype):
    dtype = np.dtype(dtype)
    return dtype if dtype.kind == "c" else np.dtype(np.complex64 if dtype == np.float32 else np.complex128)


def eigh_meta(attrs, ins, facts):
    """eigh, eigvalsh: Eigenvalues (real, ascending) and Eigenvectors of the UPLO triangle's symmetric matrices."""
    x = ins["X"]
    return numpy_meta({"Eigenvalues": (tuple(x.shape[:-1]), _real(x.dtype)), "Eigenvectors": (x.shape, x.dtype)})


def eigh_grad_meta(attrs, ins, facts):
    """eigh_grad: X@GRAD of Eigenvectors' shape and dtype; the eigenvectors' gradient of complex matrices refused."""
    v = ins["Eigenvectors"]
    if np.dtype(v.dtype).kind == "c" and ins.get("Eigenvectors@GRAD") is not None:
        raise PeError(f"eigh_grad: pe computes the eigenvectors' gradient of real matrices only, not of {v.dtype} ones")
    return numpy_meta({"X@GRAD": (v.shape, v.dtype)})


def eigvalsh_grad_meta(attrs, ins, facts):
    """eigvalsh_grad: eigh_grad's of the eigenvalues' gradient alone (Paddle's reads no other)."""
    return eigh_grad_meta(attrs, {k: v for k, v in ins.items() if k != "Eigenvectors@GRAD"}, facts)


def eig_meta(attrs, ins, facts):
    """eig: Eigenvalues and Eigenvectors, complex (of a real X: complex64 of float32, else complex128)."""
    x = ins["X"]
    dtype = _complex(x.dtype)
    return numpy_meta({"Eigenvalues": (tuple(x.shape[:-1]), dtype), "Eigenvectors": (x.shape, dtype)})


def eigvals_meta(attrs, ins, facts):
    x = ins["X"]
    return numpy_meta({"Out": (tuple(x.shape[:-1]), _complex(x.dtype))})


def qr_meta(attrs, ins, facts):
    """qr: Q [.., m, k] and R [.., k, n] (complete: [.., m, m], [.., m, n]; r: R alone, Q empty [0])."""
    x = ins["X"]
    batch, (m, n), k = tuple(x.shape[:-2]), _mn(x.shape), _k(x.shape)
    mode = attrs["mode"]
    if mode == "r":
        return numpy_meta({"Q": ((0,), x.dtype), "R": (batch + (k, n), x.dtype)})
    q, r = ((m, m), (m, n)) if mode == "complete" else ((m, k), (k, n))
    return numpy_meta({"Q": (batch + q, x.dtype), "R": (batch + r, x.dtype)})


def qr_grad_meta(attrs, ins, facts):
    """qr_grad: X@GRAD (X's shape, Q's dtype) of the reduced QR (or the complete one with m <= n: the same);
    mode 'r', and 'complete' with m > n, have no gradient in Paddle 2.6 (refused)."""
    x, q = ins["X"], ins["Q"]
    m, n = _mn(x.shape)
    if attrs["mode"] == "r" or (attrs["mode"] == "complete" and m > n):
        raise PeError(
            f"qr_grad: mode {attrs['mode']!r} of a {m}x{n} matrix has no gradient in Paddle 2.6 (mode 'reduced', "
            "or 'complete' with m <= n, has)"
        )
    return numpy_meta({"X@GRAD": (x.shape, q.dtype)})


def lu_meta(attrs, ins, facts):
    """lu: Out (X's shape and dtype), Pivots [.., k] and Infos ([..], or [1] of one matrix), int32."""
    x = ins["X"]
    batch = tuple(x.shape[:-2])
    return numpy_meta(
        {"Out": (x.shape, x.dtype), "Pivots": (batch + (_k(x.shape),), np.int32), "Infos": (batch or (1,), np.int32)}
    )


def lu_unpack_meta(attrs, ins, facts):
    """lu_unpack: Pmat [.., m, m], L [.., m, k], U [.., k, n], X's dtype."""
    x = ins["X"]
    batch, (m, n), k = tuple(x.shape[:-2]), _mn(x.shape), _k(x.shape)
    return numpy_meta(
        {"Pmat": (batch + (m, m), x.dtype), "L": (batch + (m, k), x.dtype), "U": (batch + (k, n), x.dtype)}
    )


# -- ops/linalg_decomposition.py ----------------------------------------------------------------------------------


def svd_meta(attrs, ins, facts):
    """svd: U [.., m, k], S [.., k], VH [.., k, n] (full_matrices: U [.., m, m], VH [.., n, n]), X's dtype."""
    x = ins["X"]
    batch, (m, n), k = tuple(x.shape[:-2]), _mn(x.shape), _k(x.shape)
    full = attrs["full_matrices"]
    return numpy_meta(
        {
            "U": (batch + (m, m if full else k), x.dtype),
            "S": (batch + (k,), x.dtype),
            "VH": (batch + (n if full else k, n), x.dtype),
        }
    )


def svd_grad_meta(attrs, ins, facts):
    """svd_grad: X@GRAD [.., m, n] in U's dtype; full_matrices has no gradient (refused)."""
    if attrs["full_matrices"]:
        raise PeError("svd_grad: the gradient of svd with full_matrices=True is not defined; use full_matrices=False")
    u, vh = ins["U"], ins["VH"]
    return numpy_meta({"X@GRAD": (tuple(u.shape[:-1]) + tuple(vh.shape[-1:]), u.dtype)})


def lstsq_meta(attrs, ins, facts):
    """lstsq: Solution [.., n, k]; Residuals [.., k] where every matrix pair has them (m > n, full rank), else empty
    [0] (the values say: all -1, as its shape inference gives); Rank (int32, [..] or [1]; empty for gels); SingularValues [.., min(m, n)] (gelsd,
    gelss; else empty). X and Y of other batch dims or rows refused."""
    x, y = ins["X"], ins["Y"]
    if x.shape[:-2] != y.shape[:-2] or x.shape[-2] != y.shape[-2]:
        raise PeError(f"lstsq: X {list(x.shape)} and Y {list(y.shape)} must have the same batch dims and rows")
    batch, (m, n), k = tuple(x.shape[:-2]), x.shape[-2:], y.shape[-1]
    driver = attrs["driver"]
    return numpy_meta(
        {
            "Solution": (batch + (n, k), x.dtype),
            "Residuals": ((-1,) * (len(batch) + 1), x.dtype),
            "Rank": (batch or (1,), np.int32) if driver != "gels" else ((0,), np.int32),
            "SingularValues": (batch + (min(m, n),) if driver in ("gelsd", "gelss") else (0,), x.dtype),
        }
    )
