"""The linalg family's attribute and shape rules, shared by shape inference (ops/linalg.py, ops/fused.py)
and the kernels of both devices: matmul_v2's attributes as matmul's, when matmul transposes an operand,
Fluid's fused transpose-and-reshape of matmul's Out, and how fused_gemm_epilogue flattens X."""

import math


def matmul_v1_attrs(attrs, x_ndim, y_ndim):
    """matmul_v2's attributes (trans_x, trans_y) as matmul's, whose kernels and gradients it shares, for
    operands of ranks ``x_ndim`` and ``y_ndim``: a 1-D operand's flag does nothing in matmul_v2 (Paddle
    2.x's rule), so it is False there, where Fluid 1.8's matmul would transpose the row or column."""
    return {
        "transpose_X": bool(attrs["trans_x"]) and x_ndim != 1,
        "transpose_Y": bool(attrs["trans_y"]) and y_ndim != 1,
        "alpha": 1.0,
    }


def matmul_fused_out(attrs, out_shape):
    """matmul's Out shape under Fluid's oneDNN fuse of a transpose and a reshape into it (fused_transpose_Out
    and fused_reshape_Out both set, as its inference pass writes them): the product's [B, H, M, N] permuted
    by fused_transpose_Out ([0, 2, 1, 3], the one Fluid takes), then reshaped to fused_reshape_Out (3 dims;
    0 copies the permuted dim, -1 the rest). None when not fused; an error string when the fuse does not fit."""
    perm, shape = list(attrs.get("fused_transpose_Out") or []), list(attrs.get("fused_reshape_Out") or [])
    if not perm or not shape:
        return None
    if perm != [0, 2, 1, 3] or len(shape) != 3 or len(out_shape) != 4:
        return (
            f"fused_transpose_Out {perm} must be [0, 2, 1, 3] and fused_reshape_Out {shape} 3 dims (Fluid's "
            f"fuse), over a 4-D product, not {list(out_shape)}"
        )
    moved = [out_shape[i] for i in perm]
    out = [moved[i] if s == 0 else s for i, s in enumerate(shape)]
    if out.count(-1) == 1 and min(out_shape) >= 0:
        out[out.index(-1)] = math.prod(out_shape) // max(1, -math.prod(out))
    return out


def matmul_flag(attrs, is_x):
    """Whether matmul transposes its X (``is_x``) or Y operand of rank ``ndim``: its flag (a 1-D one, made
    a row X or a column Y, too, as Fluid 1.8's matmul does; matmul_v2's is False there: matmul_v1_attrs)."""
    return bool(attrs["transpose_X" if is_x else "transpose_Y"])


def gemm_rows(x_shape, trans_x):
    """(the dims of Out before its last, the stored 2-D shape of X) of a fused_gemm_epilogue whose
    X has ``x_shape``: X flattened by its last dim ([d0 * ... * d(r-2), d(r-1)]), or, with trans_x,
    by its first ([d0, d1 * ... * d(r-1)], which the op then transposes), as Paddle flattens it."""
    x_shape = tuple(x_shape)
    if len(x_shape) == 2:  # (already [rows, cols]: a fifth of the tiny model's forward)
        return (x_shape[1:], x_shape) if trans_x else (x_shape[:1], x_shape)
    if trans_x:
        return x_shape[1:], (x_shape[0], math.prod(x_shape[1:]))
    return x_shape[:-1], (math.prod(x_shape[:-1]), x_shape[-1])
