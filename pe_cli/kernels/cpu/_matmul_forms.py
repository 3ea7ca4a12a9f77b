"""matmul's forms beyond one product (kernels of linalg.py's matmul): Fluid 1.8's multi-head matmul
(head_number > 1), and the transpose + reshape of Out that Fluid's oneDNN inference pass fuses into it
(fused_transpose_Out, fused_reshape_Out: shapes/linalg.py matmul_fused_out)."""

import numpy as np

from ...shapes.linalg import matmul_fused_out


def _moves(attrs):
    """Whether the fused transpose moves Out's values: Fluid's oneDNN kernel (use_mkldnn) writes the
    product transposed; its plain kernel writes it in place under the fused shape (both measured)."""
    return bool(attrs.get("use_mkldnn"))


def fused_output(out, attrs):
    """Out of a matmul with the fused transpose + reshape: the product ``out`` [B, H, M, N] as Fluid gives it."""
    shape = matmul_fused_out(attrs, out.shape)
    if shape is None:
        return out
    return np.ascontiguousarray(out.transpose(0, 2, 1, 3) if _moves(attrs) else out).reshape(shape)


def product_grad(dout, attrs, product_shape):
    """Out@GRAD of a fused matmul as the gradient of its product [B, H, M, N] (``product_shape``)."""
    if matmul_fused_out(attrs, product_shape) is None:
        return dout
    if not _moves(attrs):
        return dout.reshape(product_shape)
    b, h, m, n = product_shape
    return np.ascontiguousarray(dout.reshape(b, m, h, n).transpose(0, 2, 1, 3))


def _head_views(xm, ym, h):
    """Fluid 1.8's multi-head matmul (head_number h > 1): X's columns in h blocks, each times Y's block of
    rows (Y [K, N]: Out [M, h * N]) or of columns (Y [K / h, N]: Out [M, N]). The operands as [..., h, M, K/h]
    and [..., h, K/h, N'], and whether Y's rows are split."""
    k = xm.shape[-1] // h
    xh = np.moveaxis(xm.reshape(xm.shape[:-1] + (h, k)), -2, -3)
    rows = ym.shape[-2] == xm.shape[-1]
    yh = (
        ym.reshape(ym.shape[:-2] + (h, k, ym.shape[-1]))
        if rows
        else np.moveaxis(ym.reshape(ym.shape[:-1] + (h, ym.shape[-1] // h)), -2, -3)
    )
    return xh, yh, rows


def _heads_joined(a):
    """[..., h, M, N'] -> [..., M, h * N'] (the heads side by side)."""
    a = np.moveaxis(a, -3, -2)
    return a.reshape(a.shape[:-2] + (-1,))


def matmul_heads(ins, attrs, want, operands):
    """Out, X@GRAD or Y@GRAD (``want``) of matmul with head_number > 1 (X and Y of rank 2 or 3 alike);
    ``operands``: X and Y as the product's [..., M, K] and [..., K, N] (linalg._matmul_operands)."""
    x, y = ins["X"], ins["Y"]
    xm, ym = operands
    xh, yh, rows = _head_views(xm, ym, attrs["head_number"])
    alpha = x.dtype.type(attrs["alpha"])
    if want == "Out":
        return np.ascontiguousarray(_heads_joined(np.matmul(xh, yh)) * alpha, dtype=x.dtype)
    dout = ins["Out@GRAD"] * alpha
    dh = np.moveaxis(dout.reshape(dout.shape[:-1] + (attrs["head_number"], -1)), -2, -3)
    if want == "X":
        grad, flag, like = _heads_joined(np.matmul(dh, np.swapaxes(yh, -1, -2))), "transpose_X", x
    else:
        gh = np.matmul(np.swapaxes(xh, -1, -2), dh)
        grad, flag, like = (gh.reshape(ym.shape) if rows else _heads_joined(gh)), "transpose_Y", y
    grad = np.swapaxes(grad, -1, -2) if attrs[flag] else grad
    return np.ascontiguousarray(grad.reshape(like.shape), dtype=like.dtype)
