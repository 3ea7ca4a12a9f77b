"""The CPU out-kernels of pe_cli/ops/linalg_decomposing.py (structured kernels; meta rules:
shapes/linalg_decompositions.py): numpy's LAPACK, batches matrix by matrix where it has no batched form (lu). numpy's
linalg has no ``out=``: each is a "numpy" variant, ``fresh`` (kernels/structured.fresh_kernel). The kernels by name,
which CUDA runs on the host, are their adapters."""

import numpy as np

from ...shapes import linalg_decompositions as rules
from ..structured import adapter, fresh_kernel


def _t(a):
    return np.swapaxes(a, -1, -2)


def _matrix_rank(ins, attrs):
    """Paddle 2.6's MatrixRankTolKernel: tol = max(atol, rtol * the largest value), rtol = eps * max(m, n) where
    use_default_tol (else 0), atol TolTensor's value for each matrix (broadcast), or the tol attribute (0 where
    use_default_tol); Out counts the values above it."""
    x, given = ins["X"], ins.get("TolTensor")
    t = x.dtype.type
    s = np.abs(np.linalg.eigvalsh(x)) if attrs["hermitian"] else np.linalg.svd(x, compute_uv=False)
    if given is not None:
        atol = np.asarray(given, x.dtype)
    else:
        atol = t(0) if attrs["use_default_tol"] else t(np.float32(attrs["tol"]))
    if attrs["use_default_tol"]:
        rtol = t(np.finfo(x.dtype).eps * max(x.shape[-2:])) * s.max(axis=-1, initial=t(0))
        tol = np.maximum(atol, rtol)
    else:
        tol = np.broadcast_to(atol, np.broadcast_shapes(np.shape(atol), s.shape[:-1]))
    return {"Out": np.sum(s > np.asarray(tol)[..., None], axis=-1).astype(np.int64)}


def _eigh(ins, attrs):
    """LAPACK's syevd on the UPLO triangle (numpy's eigh passes it through): Paddle's eigenvectors, signs too."""
    x = ins["X"]
    w, v = np.linalg.eigh(x, UPLO=attrs["UPLO"])
    return {"Eigenvalues": w.astype(np.finfo(x.dtype).dtype), "Eigenvectors": v.astype(x.dtype)}  # w real


def _eigh_grad(ins, attrs):
    """dX = V (diag(dw) + F * (V^T dV)) V^T, F_ij = 1 / (w_j - w_i) off the diagonal, symmetrized (Paddle's
    EighGradKernel)."""
    w, v = ins["Eigenvalues"], ins["Eigenvectors"]
    dw, dv = ins.get("Eigenvalues@GRAD"), ins.get("Eigenvectors@GRAD")
    inner = np.zeros(v.shape, v.dtype)
    if dv is not None:
        diff = w[..., None, :] - w[..., :, None]
        with np.errstate(divide="ignore"):
            f = np.where(np.eye(w.shape[-1], dtype=bool), 0, 1 / np.where(diff == 0, np.inf, diff))
        inner = inner + f * (_t(v) @ dv)
    if dw is not None:
        inner = inner + dw[..., None, :] * np.eye(w.shape[-1], dtype=v.dtype)
    g = v @ inner @ _t(v).conj()  # V^H: the eigenvalues' gradient of a complex Hermitian X too
    return {"X@GRAD": ((g + _t(g).conj()) / 2).astype(v.dtype)}  # symmetrized, as Paddle's


def _eigvalsh_grad(ins, attrs):
    """V diag(dw) V^T: Paddle's eigvalsh_grad reads the eigenvalues' gradient alone."""
    return _eigh_grad({k: v for k, v in ins.items() if k != "Eigenvectors@GRAD"}, attrs)


def _qr(ins, attrs):
    x = ins["X"]
    mode = attrs["mode"]
    if mode == "r":
        return {"Q": np.zeros((0,), x.dtype), "R": np.linalg.qr(x, mode="r").astype(x.dtype)}
    q, r = np.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
    return {"Q": q.astype(x.dtype), "R": r.astype(x.dtype)}


def _qr_grad_tall(q, r, dq, dr):
    """m >= n (Paddle's QrGradKernel): M = R dR^T - dQ^T Q, copyltu(M) = tril(M) + tril(M, -1)^T;
    dX = (dQ + Q copyltu(M)) R^-T."""
    m = r @ _t(dr) - _t(dq) @ q
    sym = np.tril(m) + _t(np.tril(m, -1))
    return _t(np.linalg.solve(r, _t(dq + q @ sym)))


def _qr_grad(ins, attrs):
    """The reduced QR's gradient. m < n, as Paddle's: X = [X1 | Y] with X1 square, R = [U | V]; dY = Q dV and
    dX1 is the square case's with dQ + Y dV^T for dQ."""
    x, q, r = ins["X"], ins["Q"], ins["R"]
    dq = ins.get("Q@GRAD")
    dr = ins.get("R@GRAD")
    dq = np.zeros_like(q) if dq is None else dq
    dr = np.zeros_like(r) if dr is None else dr
    m, n = x.shape[-2:]  # (the modes with no gradient: refused by the meta rule)
    if m >= n:
        return {"X@GRAD": _qr_grad_tall(q, r, dq, dr).astype(q.dtype)}
    y, dv = x[..., m:], dr[..., m:]
    dx1 = _qr_grad_tall(q, r[..., :m], dq + y @ _t(dv), dr[..., :m])
    return {"X@GRAD": np.concatenate([dx1, q @ dv], -1).astype(q.dtype)}


def _getrf(a):
    """(LU in one matrix, 1-based pivots, info) of LAPACK's getrf, partial pivoting on the largest |value|."""
    a = a.astype(np.float64, copy=True)
    m, n = a.shape
    piv = np.zeros(min(m, n), np.int32)
    info = 0
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        piv[j] = p + 1
        if a[p, j] == 0:
            info = info or j + 1
            continue
        if p != j:
            a[[j, p]] = a[[p, j]]
        a[j + 1 :, j] /= a[j, j]
        a[j + 1 :, j + 1 :] -= np.outer(a[j + 1 :, j], a[j, j + 1 :])
    return a, piv, info


def _lu(ins, attrs):
    x = ins["X"]
    flat = x.reshape((-1,) + x.shape[-2:])
    results = [_getrf(a) for a in flat]
    k = min(x.shape[-2:])
    return {
        "Out": np.stack([r[0] for r in results]).reshape(x.shape).astype(x.dtype),
        "Pivots": np.stack([r[1] for r in results]).reshape(x.shape[:-2] + (k,)),
        "Infos": np.array([r[2] for r in results], np.int32).reshape(x.shape[:-2] or (1,)),
    }


def _lu_unpack(ins, attrs):
    x, piv = ins["X"], ins["Pivots"]
    m, n = x.shape[-2:]
    k = min(m, n)
    lower = np.tril(x[..., :, :k], -1) + np.eye(m, k, dtype=x.dtype)
    upper = np.triu(x[..., :k, :])
    flat_piv = piv.reshape(-1, piv.shape[-1])
    perms = []
    for p in flat_piv:
        order = np.arange(m)
        for j, r in enumerate(p):
            order[[j, r - 1]] = order[[r - 1, j]]
        perms.append(np.eye(m, dtype=x.dtype)[:, order])
    return {"Pmat": np.stack(perms).reshape(x.shape[:-2] + (m, m)), "L": lower, "U": upper}


def _complex(x):
    return x.dtype if np.iscomplexobj(x) else np.complex64 if x.dtype == np.float32 else np.complex128


def _eig(ins, attrs):
    x = ins["X"]
    w, v = np.linalg.eig(x)
    return {"Eigenvalues": w.astype(_complex(x)), "Eigenvectors": v.astype(_complex(x))}


def _eigvals(ins, attrs):
    """Paddle 2.6's eigvals hands LAPACK's geev x's row-major buffer, so it factors x^T: the same
    eigenvalues, in the order geev finds them for x^T (which is not always eig's)."""
    x = ins["X"]
    return {"Out": np.linalg.eigvals(np.swapaxes(x, -1, -2)).astype(_complex(x))}


_FORMS = {  # op type -> (its meta rule, its numpy form)
    "matrix_rank": (rules.matrix_rank_meta, _matrix_rank),
    "eigh": (rules.eigh_meta, _eigh),
    "eigvalsh": (rules.eigh_meta, _eigh),
    "eigh_grad": (rules.eigh_grad_meta, _eigh_grad),
    "eigvalsh_grad": (rules.eigvalsh_grad_meta, _eigvalsh_grad),
    "qr": (rules.qr_meta, _qr),
    "qr_grad": (rules.qr_grad_meta, _qr_grad),
    "lu": (rules.lu_meta, _lu),
    "lu_unpack": (rules.lu_unpack_meta, _lu_unpack),
    "eig": (rules.eig_meta, _eig),
    "eigvals": (rules.eigvals_meta, _eigvals),
}
OUT = {op: fresh_kernel(compute, f"{op}_out") for op, (_, compute) in _FORMS.items()}

# (by name: CUDA's host kernels, kernels/cuda/linalg_decomposing.py's HOST_OPS)
matrix_rank, eigh, eigvalsh = (adapter(_FORMS[t][0], OUT[t], t) for t in ("matrix_rank", "eigh", "eigvalsh"))
eigh_grad, eigvalsh_grad = (adapter(_FORMS[t][0], OUT[t], t) for t in ("eigh_grad", "eigvalsh_grad"))
qr, qr_grad, lu, lu_unpack = (adapter(_FORMS[t][0], OUT[t], t) for t in ("qr", "qr_grad", "lu", "lu_unpack"))
eig, eigvals = (adapter(_FORMS[t][0], OUT[t], t) for t in ("eig", "eigvals"))
