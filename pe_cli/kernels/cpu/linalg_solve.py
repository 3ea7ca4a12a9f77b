"""Kernels of pe_cli/ops/linalg_solve.py: numpy's LAPACK over batches of matrices, the gradients by their
closed forms (those of Paddle 2.6's grad kernels)."""

import numpy as np

from .elementwise import unbroadcast


def _t(a):
    return np.swapaxes(a, -1, -2)


def _sum_to(grad, shape):
    """A batch-broadcast gradient summed back to its input's shape."""
    return unbroadcast(grad, tuple(shape))


def mv(ins, attrs):
    return {"Out": ins["X"] @ ins["Vec"]}


def mv_grad(ins, attrs):
    x, v, d = ins["X"], ins["Vec"], ins["Out@GRAD"]
    return {"X@GRAD": np.outer(d, v).astype(x.dtype), "Vec@GRAD": (x.T @ d).astype(v.dtype)}


def determinant(ins, attrs):
    x = ins["Input"]
    return {"Out": np.linalg.det(x).astype(x.dtype)}


def determinant_grad(ins, attrs):
    x, out, d = ins["Input"], ins["Out"], ins["Out@GRAD"]
    return {"Input@GRAD": ((d * out)[..., None, None] * _t(np.linalg.inv(x))).astype(x.dtype)}


def slogdeterminant(ins, attrs):
    x = ins["Input"]
    sign, logdet = np.linalg.slogdet(x)
    return {"Out": np.stack([sign, logdet]).astype(x.dtype)}


def slogdeterminant_grad(ins, attrs):
    x, d = ins["Input"], ins["Out@GRAD"]
    return {"Input@GRAD": (d[1][..., None, None] * _t(np.linalg.inv(x))).astype(x.dtype)}


def _solve(x, y):
    """(Out, Y as matrices, whether Y was a vector)."""
    vector = y.ndim == 1
    ym = y[:, None] if vector else y
    out = np.linalg.solve(x, np.broadcast_to(ym, np.broadcast_shapes(x.shape[:-2], ym.shape[:-2]) + ym.shape[-2:]))
    return out, ym, vector


def solve(ins, attrs):
    out, _, vector = _solve(ins["X"], ins["Y"])
    return {"Out": (out[..., 0] if vector else out).astype(ins["X"].dtype)}


def solve_grad(ins, attrs):
    x, y, d = ins["X"], ins["Y"], ins["Out@GRAD"]
    out, ym, vector = _solve(x, y)
    dm = d[..., None] if vector else d
    dy = np.linalg.solve(_t(x), np.broadcast_to(dm, out.shape))
    dx = -dy @ _t(out)
    dyv = _sum_to(dy, ym.shape)
    return {"X@GRAD": _sum_to(dx, x.shape).astype(x.dtype), "Y@GRAD": (dyv[:, 0] if vector else dyv).astype(y.dtype)}


def _triangle(x, attrs):
    a = np.triu(x) if attrs["upper"] else np.tril(x)
    if attrs["unitriangular"]:
        n = x.shape[-1]
        a = a * (1 - np.eye(n, dtype=x.dtype)) + np.eye(n, dtype=x.dtype)
    return a


def _op_a(x, attrs):
    a = _triangle(x, attrs)
    return _t(a) if attrs["transpose"] else a


def triangular_solve(ins, attrs):
    x, y = ins["X"], ins["Y"]
    a = _op_a(x, attrs)
    shape = np.broadcast_shapes(a.shape[:-2], y.shape[:-2])
    return {
        "Out": np.linalg.solve(
            np.broadcast_to(a, shape + a.shape[-2:]), np.broadcast_to(y, shape + y.shape[-2:])
        ).astype(x.dtype)
    }


def triangular_solve_grad(ins, attrs):
    x, y, out, d = ins["X"], ins["Y"], ins["Out"], ins["Out@GRAD"]
    a = _op_a(x, attrs)
    dy = np.linalg.solve(np.broadcast_to(_t(a), out.shape[:-2] + a.shape[-2:]), d)
    da = -dy @ _t(out)
    if attrs["transpose"]:
        da = _t(da)
    da = np.triu(da) if attrs["upper"] else np.tril(da)
    if attrs["unitriangular"]:
        da = da * (1 - np.eye(x.shape[-1], dtype=x.dtype))
    return {"X@GRAD": _sum_to(da, x.shape).astype(x.dtype), "Y@GRAD": _sum_to(dy, y.shape).astype(y.dtype)}


def _gram(y, upper):
    return _t(y) @ y if upper else y @ _t(y)


def cholesky_solve(ins, attrs):
    x, y = ins["X"], ins["Y"]
    a = _gram(np.triu(y) if attrs["upper"] else np.tril(y), attrs["upper"])
    shape = np.broadcast_shapes(a.shape[:-2], x.shape[:-2])
    return {
        "Out": np.linalg.solve(
            np.broadcast_to(a, shape + a.shape[-2:]), np.broadcast_to(x, shape + x.shape[-2:])
        ).astype(x.dtype)
    }


def cholesky_solve_grad(ins, attrs):
    """Paddle's: dX = cholesky_solve(dOut, Y); dY = the lower (upper) triangle of (C + C^T) Y (upper: Y (C + C^T)),
    C = -dX Out^T."""
    x, y, out, d = ins["X"], ins["Y"], ins["Out"], ins["Out@GRAD"]
    tri = np.triu(y) if attrs["upper"] else np.tril(y)
    a = _gram(tri, attrs["upper"])
    dx = np.linalg.solve(np.broadcast_to(a, out.shape[:-2] + a.shape[-2:]), d)
    c = -dx @ _t(out)
    sym = c + _t(c)
    dy = np.triu(tri @ sym) if attrs["upper"] else np.tril(sym @ tri)
    return {"X@GRAD": _sum_to(dx, x.shape).astype(x.dtype), "Y@GRAD": _sum_to(dy, y.shape).astype(y.dtype)}


def _chain(mats):
    out = mats[0]
    for m in mats[1:]:
        out = out @ m
    return out


def _as_matrices(xs):
    mats = list(xs)
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    return mats


def multi_dot(ins, attrs):
    xs = ins["X"]
    out = _chain(_as_matrices(xs))
    shape = ([] if xs[0].ndim == 1 else [out.shape[0]]) + ([] if xs[-1].ndim == 1 else [out.shape[1]])
    return {"Out": out.reshape(shape).astype(xs[0].dtype)}


def multi_dot_grad(ins, attrs):
    xs, d = ins["X"], ins["Out@GRAD"]
    mats = _as_matrices(xs)
    dm = d.reshape(mats[0].shape[0], mats[-1].shape[1])
    grads = []
    for i, x in enumerate(xs):
        left = _chain(mats[:i]) if i else np.eye(mats[0].shape[0], dtype=dm.dtype)
        right = _chain(mats[i + 1 :]) if i + 1 < len(mats) else np.eye(mats[-1].shape[1], dtype=dm.dtype)
        grads.append((left.T @ dm @ right.T).reshape(x.shape).astype(x.dtype))
    return {"X@GRAD": grads}


def matrix_power(ins, attrs):
    x = ins["X"]
    return {"Out": np.linalg.matrix_power(x, int(attrs["n"])).astype(x.dtype)}


def matrix_power_grad(ins, attrs):
    x, d, n = ins["X"], ins["Out@GRAD"], int(attrs["n"])
    base = x if n >= 0 else np.linalg.inv(x)
    m = abs(n)
    powers = [np.linalg.matrix_power(base, k) for k in range(m)]
    dbase = sum((_t(powers[k]) @ d @ _t(powers[m - 1 - k]) for k in range(m)), np.zeros_like(x))
    dx = dbase if n >= 0 else -_t(base) @ dbase @ _t(base)
    return {"X@GRAD": dx.astype(x.dtype)}
