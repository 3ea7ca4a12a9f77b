"""Linear algebra kernels, all structured kernels: inverse, cholesky and its gradient, spectral_norm and its gradient
(numpy forms, "numpy" variants ``fresh``: ``OUT``, their meta rules shapes/linalg_solve.py's); matmul, matmul_v2,
their gradients and mul and its gradient (their meta rules shapes/matmul.py's and shapes/gemm.py's, their
out-kernels matmul.py's and gemm.py's). Here too their adapters, which CUDA's host fallbacks and other kernels find
by name (kernels/structured.adapter)."""

import numpy as np

from ...shapes import gemm as gemm_meta
from ...shapes import linalg_solve as rules
from ...shapes import matmul as matmul_meta
from ..value_checks import not_invertible, not_positive_definite
from ..structured import adapter, fresh_kernel
from . import gemm
from .matmul import MATMUL, MATMUL_GRAD

mul = adapter(gemm_meta.mul_meta, gemm.MUL, "mul")
mul_grad = adapter(gemm_meta.mul_grad_meta, gemm.MUL_GRAD, "mul_grad")
matmul = adapter(matmul_meta.matmul_meta, MATMUL, "matmul")
matmul_v2 = adapter(matmul_meta.matmul_v2_meta, MATMUL, "matmul_v2")
matmul_grad = adapter(matmul_meta.matmul_grad_meta, MATMUL_GRAD, "matmul_grad")
matmul_grad_x = adapter(matmul_meta.matmul_grad_x_meta, MATMUL_GRAD, "matmul_grad_x")
matmul_grad_y = adapter(matmul_meta.matmul_grad_y_meta, MATMUL_GRAD, "matmul_grad_y")


def _inverse(ins, attrs):
    x = ins["Input"]
    try:
        out = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise not_invertible(x.shape) from None
    return {"Output": out.astype(x.dtype, copy=False)}


def _cholesky(ins, attrs):
    x = ins["X"]
    try:
        lower = np.linalg.cholesky(0.5 * (x + np.swapaxes(x, -1, -2)))
    except np.linalg.LinAlgError:
        raise not_positive_definite(x.shape) from None
    out = np.swapaxes(lower, -1, -2) if attrs["upper"] else lower
    return {"Out": np.ascontiguousarray(out).astype(x.dtype, copy=False)}


def _cholesky_grad(ins, attrs):
    """dX = sym(L^-T Phi(L^T dL) L^-1): L lower (Out, or Out^T when upper), Phi the lower triangle with
    its diagonal halved, sym(S) = (S + S^T) / 2 (Murray, 2016, as Fluid 1.8's cholesky_grad)."""
    out, dout = ins["Out"], ins["Out@GRAD"]
    lower, dlower = (np.swapaxes(v, -1, -2) for v in (out, dout)) if attrs["upper"] else (out, dout)
    prod = np.swapaxes(lower, -1, -2) @ dlower
    phi = np.tril(prod, -1) + 0.5 * np.tril(np.triu(prod))
    inv = np.linalg.inv(lower)
    s = np.swapaxes(inv, -1, -2) @ phi @ inv
    return {"X@GRAD": np.ascontiguousarray(0.5 * (s + np.swapaxes(s, -1, -2))).astype(out.dtype, copy=False)}


# -- spectral_norm ----------------------------------------------------------------------------------------


def _spectral(ins, attrs):
    """(W as a [h, w] matrix, its permutation, u, v, sigma) after Fluid's power iterations."""
    weight, dim = ins["Weight"], attrs["dim"] % ins["Weight"].ndim
    perm = [dim] + [i for i in range(weight.ndim) if i != dim]
    mat = weight.transpose(perm).reshape(weight.shape[dim], -1)
    u, v, eps = ins["U"].reshape(-1).copy(), ins["V"].reshape(-1).copy(), attrs["eps"]
    for _ in range(attrs["power_iters"]):
        v = mat.T @ u
        v = v / (np.sqrt((v * v).sum()) + eps)
        u = mat @ v
        u = u / (np.sqrt((u * u).sum()) + eps)
    return mat, perm, u, v, u @ (mat @ v)


def _unpermute(mat, weight, perm):
    return mat.reshape([weight.shape[i] for i in perm]).transpose(np.argsort(perm))


def _spectral_norm(ins, attrs):
    mat, perm, _, _, sigma = _spectral(ins, attrs)
    return {"Out": _unpermute(mat / sigma, ins["Weight"], perm).astype(ins["Weight"].dtype, copy=False)}


def _spectral_norm_grad(ins, attrs):
    mat, perm, u, v, sigma = _spectral(ins, attrs)
    dout = ins["Out@GRAD"].transpose(perm).reshape(mat.shape)
    dmat = (dout - (dout * (mat / sigma)).sum() * np.outer(u, v)) / sigma
    return {"Weight@GRAD": _unpermute(dmat, ins["Weight"], perm).astype(ins["Weight"].dtype, copy=False)}


OUT = {
    "inverse": fresh_kernel(_inverse, "inverse_out"),
    "cholesky": fresh_kernel(_cholesky, "cholesky_out"),
    "cholesky_grad": fresh_kernel(_cholesky_grad, "cholesky_grad_out"),
    "spectral_norm": fresh_kernel(_spectral_norm, "spectral_norm_out"),
    "spectral_norm_grad": fresh_kernel(_spectral_norm_grad, "spectral_norm_grad_out"),
}
# (by name: CUDA's host kernels, kernels/cuda/linalg.py's HOST_OPS)
cholesky_grad = adapter(rules.cholesky_grad_meta, OUT["cholesky_grad"], "cholesky_grad")
spectral_norm = adapter(rules.spectral_norm_meta, OUT["spectral_norm"], "spectral_norm")
spectral_norm_grad = adapter(rules.spectral_norm_grad_meta, OUT["spectral_norm_grad"], "spectral_norm_grad")
