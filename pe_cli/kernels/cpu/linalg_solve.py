"""The CPU out-kernels of pe_cli/ops/linalg_solve.py (structured kernels; meta rules: shapes/linalg_solve.py):
numpy's LAPACK over batches of matrices, the gradients by their closed forms (those of Paddle 2.6's grad kernels).
numpy's linalg has no ``out=``: each is a "numpy" variant, ``fresh`` (kernels/structured.fresh_kernel: the arrays
numpy made, in the dtypes the Meta names); mv's, multi_dot's and their gradients' "out" variants write numpy's matmul
through its ``out=`` (values of one dtype whose shapes meet). The kernels by name, which CUDA runs on the host, are
their adapters."""

import numpy as np

from ...shapes import linalg_solve as rules
from ..structured import adapter, fresh_kernel
from .elementwise import unbroadcast
from .launches import by_variant


def _t(a):
    return np.swapaxes(a, -1, -2)


def _sum_to(grad, shape):
    """A batch-broadcast gradient summed back to its input's shape."""
    return unbroadcast(grad, tuple(shape))


def _mv(ins, attrs):
    return {"Out": ins["X"] @ ins["Vec"]}


def _mv_grad(ins, attrs):
    x, v, d = ins["X"], ins["Vec"], ins["Out@GRAD"]
    return {"X@GRAD": np.outer(d, v).astype(x.dtype), "Vec@GRAD": (x.T @ d).astype(v.dtype)}


def _mv_out(ins, outs, attrs, meta):
    """mv's "out" variant (X and Vec of one dtype): numpy's matmul written through its ``out=``."""
    np.matmul(ins["X"], ins["Vec"], out=outs["Out"])


def _mv_grad_out(ins, outs, attrs, meta):
    """mv_grad's "out" variant (every value of one dtype): numpy's outer product and matmul through ``out=``."""
    x, v, d = ins["X"], ins["Vec"], ins["Out@GRAD"]
    np.outer(d, v, out=outs["X@GRAD"])
    np.matmul(x.T, d, out=outs["Vec@GRAD"])


def _determinant(ins, attrs):
    x = ins["Input"]
    return {"Out": np.linalg.det(x).astype(x.dtype)}


def _determinant_grad(ins, attrs):
    x, out, d = ins["Input"], ins["Out"], ins["Out@GRAD"]
    return {"Input@GRAD": ((d * out)[..., None, None] * _t(np.linalg.inv(x))).astype(x.dtype)}


def _slogdeterminant(ins, attrs):
    x = ins["Input"]
    sign, logdet = np.linalg.slogdet(x)
    return {"Out": np.stack([sign, logdet]).astype(x.dtype)}


def _slogdeterminant_grad(ins, attrs):
    x, d = ins["Input"], ins["Out@GRAD"]
    return {"Input@GRAD": (d[1][..., None, None] * _t(np.linalg.inv(x))).astype(x.dtype)}


def _solve(x, y):
    """(Out, Y as matrices, whether Y was a (batch of) vector(s): rules.vector_rhs, Paddle's is_vector_rhs)."""
    vector = rules.vector_rhs(x.shape, y.shape)
    ym = y[..., None] if vector else y
    out = np.linalg.solve(x, np.broadcast_to(ym, np.broadcast_shapes(x.shape[:-2], ym.shape[:-2]) + ym.shape[-2:]))
    return out, ym, vector


def _solve_op(ins, attrs):
    out, _, vector = _solve(ins["X"], ins["Y"])
    return {"Out": (out[..., 0] if vector else out).astype(ins["X"].dtype)}


def _solve_grad(ins, attrs):
    x, y, d = ins["X"], ins["Y"], ins["Out@GRAD"]
    out, ym, vector = _solve(x, y)
    dm = d[..., None] if vector else d
    dy = np.linalg.solve(_t(x), np.broadcast_to(dm, out.shape))
    dx = -dy @ _t(out)
    dyv = _sum_to(dy, ym.shape)
    return {"X@GRAD": _sum_to(dx, x.shape).astype(x.dtype), "Y@GRAD": (dyv[..., 0] if vector else dyv).astype(y.dtype)}


def _triangle(x, attrs):
    a = np.triu(x) if attrs["upper"] else np.tril(x)
    if attrs["unitriangular"]:
        n = x.shape[-1]
        a = a * (1 - np.eye(n, dtype=x.dtype)) + np.eye(n, dtype=x.dtype)
    return a


def _op_a(x, attrs):
    a = _triangle(x, attrs)
    return _t(a) if attrs["transpose"] else a


def _triangular_solve(ins, attrs):
    x, y = ins["X"], ins["Y"]
    a = _op_a(x, attrs)
    shape = np.broadcast_shapes(a.shape[:-2], y.shape[:-2])
    return {
        "Out": np.linalg.solve(
            np.broadcast_to(a, shape + a.shape[-2:]), np.broadcast_to(y, shape + y.shape[-2:])
        ).astype(x.dtype)
    }


def _triangular_solve_grad(ins, attrs):
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


def _cholesky_solve(ins, attrs):
    x, y = ins["X"], ins["Y"]
    a = _gram(np.triu(y) if attrs["upper"] else np.tril(y), attrs["upper"])
    shape = np.broadcast_shapes(a.shape[:-2], x.shape[:-2])
    return {
        "Out": np.linalg.solve(
            np.broadcast_to(a, shape + a.shape[-2:]), np.broadcast_to(x, shape + x.shape[-2:])
        ).astype(x.dtype)
    }


def _cholesky_solve_grad(ins, attrs):
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


def _multi_dot(ins, attrs):
    xs = ins["X"]
    out = _chain(_as_matrices(xs))
    shape = ([] if xs[0].ndim == 1 else [out.shape[0]]) + ([] if xs[-1].ndim == 1 else [out.shape[1]])
    return {"Out": out.reshape(shape).astype(xs[0].dtype)}


def _multi_dot_grad(ins, attrs):
    xs, d = ins["X"], ins["Out@GRAD"]
    mats = _as_matrices(xs)
    dm = d.reshape(mats[0].shape[0], mats[-1].shape[1])
    grads = []
    for i, x in enumerate(xs):
        left, right = _beside(mats, i, dm.dtype)
        grads.append((left.T @ dm @ right.T).reshape(x.shape).astype(x.dtype))
    return {"X@GRAD": grads}


def _beside(mats, i, dtype):
    """The chain's products left and right of its ``i``-th matrix (an identity where none is)."""
    left = _chain(mats[:i]) if i else np.eye(mats[0].shape[0], dtype=dtype)
    right = _chain(mats[i + 1 :]) if i + 1 < len(mats) else np.eye(mats[-1].shape[1], dtype=dtype)
    return left, right


def _multi_dot_out(ins, outs, attrs, meta):
    """multi_dot's "out" variant (matrices, the ends possibly vectors, of one dtype): the chain's last matmul
    written through ``out=`` (Out as the product's matrix)."""
    mats = _as_matrices(ins["X"])
    np.matmul(_chain(mats[:-1]), mats[-1], out=outs["Out"].reshape(mats[0].shape[0], mats[-1].shape[1]))


def _multi_dot_grad_out(ins, outs, attrs, meta):
    """multi_dot_grad's "out" variant (every value of one dtype): each X@GRAD's last matmul through ``out=``."""
    mats, d = _as_matrices(ins["X"]), ins["Out@GRAD"]
    dm = d.reshape(mats[0].shape[0], mats[-1].shape[1])
    for i, buffer in enumerate(outs["X@GRAD"]):
        left, right = _beside(mats, i, dm.dtype)
        np.matmul(left.T @ dm, right.T, out=buffer.reshape(mats[i].shape))


def _matrix_power(ins, attrs):
    x = ins["X"]
    return {"Out": np.linalg.matrix_power(x, int(attrs["n"])).astype(x.dtype)}


def _matrix_power_grad(ins, attrs):
    x, d, n = ins["X"], ins["Out@GRAD"], int(attrs["n"])
    base = x if n >= 0 else np.linalg.inv(x)
    m = abs(n)
    powers = [np.linalg.matrix_power(base, k) for k in range(m)]
    dbase = sum((_t(powers[k]) @ d @ _t(powers[m - 1 - k]) for k in range(m)), np.zeros_like(x))
    dx = dbase if n >= 0 else -_t(base) @ dbase @ _t(base)
    return {"X@GRAD": dx.astype(x.dtype)}


_FORMS = {  # op type -> (its meta rule, its numpy form)
    "mv": (rules.mv_meta, _mv),
    "mv_grad": (rules.mv_grad_meta, _mv_grad),
    "determinant": (rules.determinant_meta, _determinant),
    "determinant_grad": (rules.determinant_grad_meta, _determinant_grad),
    "slogdeterminant": (rules.slogdeterminant_meta, _slogdeterminant),
    "slogdeterminant_grad": (rules.slogdeterminant_grad_meta, _slogdeterminant_grad),
    "solve": (rules.solve_meta, _solve_op),
    "solve_grad": (rules.solve_grad_meta, _solve_grad),
    "triangular_solve": (rules.triangular_solve_meta, _triangular_solve),
    "triangular_solve_grad": (rules.pair_grad_meta, _triangular_solve_grad),
    "cholesky_solve": (rules.cholesky_solve_meta, _cholesky_solve),
    "cholesky_solve_grad": (rules.pair_grad_meta, _cholesky_solve_grad),
    "multi_dot": (rules.multi_dot_meta, _multi_dot),
    "multi_dot_grad": (rules.multi_dot_grad_meta, _multi_dot_grad),
    "matrix_power": (rules.matrix_power_meta, _matrix_power),
    "matrix_power_grad": (rules.matrix_power_grad_meta, _matrix_power_grad),
}
OUT = {op: fresh_kernel(compute, f"{op}_out") for op, (_, compute) in _FORMS.items()}
_OUT_FORMS = {
    "mv": _mv_out,
    "mv_grad": _mv_grad_out,
    "multi_dot": _multi_dot_out,
    "multi_dot_grad": _multi_dot_grad_out,
}
OUT.update({op: by_variant(f"{op}_out", None, numpy=OUT[op], out=out) for op, out in _OUT_FORMS.items()})

# (by name: CUDA's host kernels, kernels/cuda/linalg_solve.py's HOST_OPS)
mv, mv_grad = (adapter(_FORMS[t][0], OUT[t], t) for t in ("mv", "mv_grad"))
determinant, determinant_grad = (adapter(_FORMS[t][0], OUT[t], t) for t in ("determinant", "determinant_grad"))
slogdeterminant, slogdeterminant_grad = (
    adapter(_FORMS[t][0], OUT[t], t) for t in ("slogdeterminant", "slogdeterminant_grad")
)
solve, solve_grad = (adapter(_FORMS[t][0], OUT[t], t) for t in ("solve", "solve_grad"))
triangular_solve, triangular_solve_grad = (
    adapter(_FORMS[t][0], OUT[t], t) for t in ("triangular_solve", "triangular_solve_grad")
)
cholesky_solve, cholesky_solve_grad = (
    adapter(_FORMS[t][0], OUT[t], t) for t in ("cholesky_solve", "cholesky_solve_grad")
)
multi_dot, multi_dot_grad = (adapter(_FORMS[t][0], OUT[t], t) for t in ("multi_dot", "multi_dot_grad"))
matrix_power, matrix_power_grad = (adapter(_FORMS[t][0], OUT[t], t) for t in ("matrix_power", "matrix_power_grad"))
