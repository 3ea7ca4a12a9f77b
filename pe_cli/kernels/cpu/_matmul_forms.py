"""matmul's form beyond one product (matmul.py's HEADS variant, a numpy form): Fluid 1.8's multi-head matmul
(head_number > 1). (The transpose + reshape of Out that Fluid's oneDNN inference pass fuses into it,
fused_transpose_Out and fused_reshape_Out, is a step of matmul.py's products: shapes/matmul.py.)"""

import numpy as np


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
    ``operands``: X and Y as the product's [..., M, K] and [..., K, N] (matmul.py's _heads)."""
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
