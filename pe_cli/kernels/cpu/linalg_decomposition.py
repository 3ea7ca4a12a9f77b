"""Matrix decomposition kernels: svd and its gradient, lstsq (numpy's LAPACK, matrix by matrix): structured kernels'
out-kernels (meta rules: shapes/linalg_decompositions.py), "numpy" variants, ``fresh`` (numpy's linalg has no
``out=``: kernels/structured.fresh_kernel). The kernels by name, which CUDA runs on the host, are their adapters."""

import numpy as np

from ...shapes import linalg_decompositions as rules
from ..structured import adapter, fresh_kernel


def _svd(ins, attrs):
    x = ins["X"]
    u, s, vh = np.linalg.svd(x, full_matrices=attrs["full_matrices"])
    return {
        "U": u.astype(x.dtype, copy=False),
        "S": s.astype(x.dtype, copy=False),
        "VH": vh.astype(x.dtype, copy=False),
    }


def _t(a):
    return np.swapaxes(a, -1, -2)


def _svd_grad(ins, attrs):
    """The real SVD's gradient (reduced matrices; see the op's doc)."""
    # (full_matrices, which has no gradient: refused by the meta rule)
    u, s, vh = ins["U"], ins["S"], ins["VH"]
    v = _t(vh)
    m, n = u.shape[-2], vh.shape[-1]
    du = ins["U@GRAD"] if ins.get("U@GRAD") is not None else np.zeros_like(u)
    ds = ins["S@GRAD"] if ins.get("S@GRAD") is not None else np.zeros_like(s)
    dv = _t(ins["VH@GRAD"]) if ins.get("VH@GRAD") is not None else np.zeros_like(v)
    s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2  # s_j^2 - s_i^2
    tied = np.abs(s2) <= 1e-12 * np.maximum(s[..., :1, None] ** 2, 1e-300)  # the diagonal and repeated values
    f = np.where(tied, 0.0, 1.0 / np.where(tied, 1.0, s2))
    utdu, vtdv = _t(u) @ du, _t(v) @ dv
    smat = s[..., None, :] * np.eye(s.shape[-1])  # diag(S)
    inner = (f * (utdu - _t(utdu))) @ smat + ds[..., None, :] * np.eye(s.shape[-1]) + smat @ (f * (vtdv - _t(vtdv)))
    dx = u @ inner @ vh
    sinv = 1.0 / s
    if m > s.shape[-1]:
        dx = dx + (du - u @ (_t(u) @ du)) * sinv[..., None, :] @ vh
    if n > s.shape[-1]:
        dx = dx + (u * sinv[..., None, :]) @ (_t(dv) - (_t(dv) @ v) @ vh)
    return {"X@GRAD": dx.astype(u.dtype, copy=False)}


def _lstsq(ins, attrs):
    x, y = ins["X"], ins["Y"]
    rcond, driver = attrs["rcond"], attrs["driver"]
    # (X and Y of other batch dims or rows: refused by the meta rule)
    batch, (m, n), k = x.shape[:-2], x.shape[-2:], y.shape[-1]
    xs, ys = x.reshape(-1, m, n).astype("float64"), y.reshape(-1, m, k).astype("float64")
    sols, res, ranks, svs = [], [], [], []
    for a, b in zip(xs, ys):
        sol, r, rank, sv = np.linalg.lstsq(a, b, rcond=rcond)
        sols.append(sol), res.append(r), ranks.append(rank), svs.append(sv)
    out = {
        "Solution": np.stack(sols).reshape(batch + (n, k)).astype(x.dtype)
        if sols
        else np.zeros(batch + (n, k), x.dtype)
    }
    full = bool(res) and all(r.size for r in res)
    out["Residuals"] = (np.stack(res).reshape(batch + (k,)) if full else np.zeros((0,))).astype(x.dtype)
    out["Rank"] = np.array(ranks, "int32").reshape(batch or (1,)) if driver != "gels" else np.zeros((0,), "int32")
    if driver in ("gelsd", "gelss"):
        out["SingularValues"] = (
            np.stack(svs).reshape(batch + (min(m, n),)).astype(x.dtype)
            if svs
            else np.zeros(batch + (min(m, n),), x.dtype)
        )
    else:
        out["SingularValues"] = np.zeros((0,), x.dtype)
    return out


OUT = {
    "svd": fresh_kernel(_svd, "svd_out"),
    "svd_grad": fresh_kernel(_svd_grad, "svd_grad_out"),
    "lstsq": fresh_kernel(_lstsq, "lstsq_out"),
}
# (by name: CUDA's host kernels, kernels/cuda/linalg_decomposition.py's HOST_OPS)
svd = adapter(rules.svd_meta, OUT["svd"], "svd")
svd_grad = adapter(rules.svd_grad_meta, OUT["svd_grad"], "svd_grad")
lstsq = adapter(rules.lstsq_meta, OUT["lstsq"], "lstsq")
