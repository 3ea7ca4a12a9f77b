"""Op cases for family linalg: matmul (transposes, alpha, batches with broadcasting, 1-D inputs, head_number), matmul_v2,
mul, inverse and cholesky (np.linalg.inv, np.linalg.cholesky)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(5)


def r(*shape):
    return rng.normal(size=shape)


def _t(a, flag):
    return np.swapaxes(a, -1, -2) if flag and a.ndim > 1 else a


def _matmul_ref(i, a):
    x, y = i["X"], i["Y"]
    out = a["alpha"] * np.matmul(_t(x, a["transpose_X"]), _t(y, a["transpose_Y"]))
    return {"Out": np.reshape(out, np.shape(out) or (1,))}


def matmul(x, y, name, **attrs):
    return OpCase("matmul", {"X": x, "Y": y}, _matmul_ref, attrs=attrs, grad=("X", "Y"), name=name)


def _matmul_heads_ref(i, a):
    """Fluid 1.8's multi-head matmul, head by head: X's column block h times Y's row block h (Y has as
    many rows as X columns) or Y's column block h (Y has one block's rows); the products side by side."""
    x, y, h = _t(i["X"], a["transpose_X"]), _t(i["Y"], a["transpose_Y"]), a["head_number"]
    k = x.shape[-1] // h
    rows = y.shape[-2] == x.shape[-1]
    n = y.shape[-1] if rows else y.shape[-1] // h
    parts = [
        x[..., j * k : (j + 1) * k] @ (y[..., j * k : (j + 1) * k, :] if rows else y[..., j * n : (j + 1) * n])
        for j in range(h)
    ]
    return {"Out": a["alpha"] * np.concatenate(parts, axis=-1)}


def matmul_heads(x, y, name, **attrs):
    return OpCase("matmul", {"X": x, "Y": y}, _matmul_heads_ref, attrs=attrs, grad=("X", "Y"), name=name)


# the head cases draw from a generator of their own: the cases after them keep the inputs they were
# written for (spectral_norm's power iterations converge to 1e-9 on those)
heads = np.random.default_rng(8).normal

CASES = [
    matmul_heads(heads(size=(3, 8)), heads(size=(8, 5)), "matmul_heads_split_y_rows", head_number=4),
    matmul_heads(
        heads(size=(2, 8, 3)),
        heads(size=(2, 5, 8)),
        "matmul_heads_batched_transposed",
        head_number=2,
        transpose_X=True,
        transpose_Y=True,
        alpha=0.5,
    ),
    matmul_heads(heads(size=(3, 8)), heads(size=(2, 8)), "matmul_heads_split_y_columns", head_number=4),
    matmul_heads(
        heads(size=(2, 8, 3)),
        heads(size=(2, 8, 2)),
        "matmul_heads_split_y_columns_transposed",
        head_number=4,
        transpose_X=True,
        transpose_Y=True,
    ),
    matmul(r(3, 4), r(4, 5), "matmul"),
    matmul(r(4, 3), r(4, 5), "matmul_transpose_x", transpose_X=True),
    matmul(r(3, 4), r(5, 4), "matmul_transpose_y", transpose_Y=True),
    matmul(r(4, 3), r(5, 4), "matmul_transpose_both_alpha", transpose_X=True, transpose_Y=True, alpha=0.5),
    matmul(r(2, 3, 4), r(2, 4, 5), "matmul_batched"),
    matmul(r(2, 3, 4), r(4, 5), "matmul_batch_x_matrix_y"),
    matmul(r(3, 4), r(2, 4, 5), "matmul_matrix_x_batch_y", alpha=2.0),
    matmul(r(2, 1, 3, 4), r(3, 5, 4), "matmul_broadcast_batch", transpose_Y=True),
    matmul(r(4), r(4, 5), "matmul_1d_x"),
    matmul(r(2, 3, 4), r(4), "matmul_1d_y"),
    matmul(r(4), r(4), "matmul_1d_both"),
    matmul(r(4), r(2, 5, 4), "matmul_1d_x_batched_transposed_y", transpose_Y=True),
    OpCase(
        "matmul_v2",
        {"X": r(2, 3, 4), "Y": r(2, 5, 4)},
        lambda i, a: {"Out": np.matmul(i["X"], np.swapaxes(i["Y"], -1, -2))},
        attrs={"trans_y": True},
        grad=("X", "Y"),
        name="matmul_v2_trans_y",
    ),
    OpCase(  # the attention's q k^T: float32 stacks (its gradient's products: matmul_v2_trans_y's, in float64) of one batch shape (STACKED)
        "matmul_v2",
        {"X": r(2, 3, 5, 4).astype(np.float32), "Y": r(2, 3, 6, 4).astype(np.float32)},
        lambda i, a: {"Out": np.matmul(i["X"], np.swapaxes(i["Y"], -1, -2))},
        attrs={"trans_y": True},
        name="matmul_v2_stacked_trans_y_float32",
        rtol=1e-5,
        atol=1e-6,
    ),
    OpCase(  # a stack of 2**20 multiply-adds: split over the device's threads where it has several
        "matmul_v2",
        {"X": r(8, 64, 32), "Y": r(8, 32, 64)},
        lambda i, a: {"Out": np.matmul(i["X"], i["Y"])},
        grad=("X", "Y"),
        name="matmul_v2_stacked_large",
    ),
    OpCase(
        "matmul_v2",
        {"X": r(4, 3), "Y": r(4)},
        lambda i, a: {"Out": np.matmul(i["X"].T, i["Y"])},
        attrs={"trans_x": True},
        grad=("X", "Y"),
        name="matmul_v2_trans_x_1d_y",
    ),
    OpCase(
        "matmul",
        {"X": r(3, 4).astype(np.float32), "Y": r(4, 2).astype(np.float32)},
        lambda i, a: {"Out": i["X"] @ i["Y"]},
        name="matmul_float32",
        rtol=1e-5,
        atol=1e-6,
    ),
]

_well = r(3, 3) + 3 * np.eye(3)
_batch = r(2, 4, 4) + 4 * np.eye(4)
_root = r(2, 3, 3)
_spd = _root @ np.swapaxes(_root, 1, 2) + 2 * np.eye(3)
_pivot = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 3.0]])  # needs a row swap
CASES += [
    OpCase("mul", {"X": r(3, 4), "Y": r(4, 5)}, lambda i, a: {"Out": i["X"] @ i["Y"]}, grad=("X", "Y")),
    OpCase(
        "mul",
        {"X": r(2, 3, 4), "Y": r(12, 5)},
        name="mul_flatten",
        ref=lambda i, a: {"Out": (i["X"].reshape(2, 12) @ i["Y"]).reshape(2, 5)},
        attrs={"x_num_col_dims": 1},
        grad=("X", "Y"),
    ),
    OpCase("inverse", {"Input": _well}, lambda i, a: {"Output": np.linalg.inv(i["Input"])}, grad=("Input",)),
    OpCase(
        "inverse",
        {"Input": _batch},
        lambda i, a: {"Output": np.linalg.inv(i["Input"])},
        grad=("Input",),
        name="inverse_batched",
    ),
    OpCase(
        "inverse",
        {"Input": _pivot},
        lambda i, a: {"Output": np.linalg.inv(i["Input"])},
        rtol=1e-9,
        name="inverse_pivoting",
    ),
    OpCase("cholesky", {"X": _spd[0]}, lambda i, a: {"Out": np.linalg.cholesky(i["X"])}, grad=("X",)),
    OpCase(
        "cholesky",
        {"X": _spd},
        lambda i, a: {"Out": np.swapaxes(np.linalg.cholesky(i["X"]), 1, 2)},
        attrs={"upper": True},
        grad=("X",),
        name="cholesky_upper_batched",
    ),
]


# -- spectral_norm: against numpy's largest singular value (the power iterations converged) ---------------


def _spectral_ref(i, a):
    w, dim = i["Weight"], a.get("dim", 0)
    mat = np.moveaxis(w, dim, 0).reshape(w.shape[dim], -1)
    return {"Out": w / np.linalg.svd(mat, compute_uv=False)[0]}


CASES += [
    OpCase(
        "spectral_norm",
        {"Weight": r(3, 4), "U": r(3), "V": r(4)},
        _spectral_ref,
        attrs={"power_iters": 60},
        grad=("Weight",),
        rtol=1e-9,
    ),
    OpCase(
        "spectral_norm",
        {"Weight": r(2, 3, 2), "U": r(3), "V": r(4)},
        _spectral_ref,
        attrs={"dim": 1, "power_iters": 60},
        grad=("Weight",),
        rtol=1e-9,
        name="spectral_norm_dim1",
    ),
]


# Fluid 1.8's matmul transposes the row (X) or column (Y) it makes of a 1-D operand (test_matmul_op.py's
# dimX_1 / dimY_1 cases); matmul_v2 (Paddle 2.x) ignores a 1-D operand's flag
_vx, _vy = r(3), r(4)
CASES += [
    OpCase(
        "matmul",
        {"X": _vx, "Y": _vy},
        lambda i, a: {"Out": np.outer(i["X"], i["Y"])},
        attrs={"transpose_X": True, "transpose_Y": True},
        grad=("X", "Y"),
        name="matmul_vectors_transposed",
    ),
    OpCase(
        "matmul",
        {"X": _vx, "Y": r(1, 4)},
        lambda i, a: {"Out": i["X"][:, None] @ i["Y"]},
        attrs={"transpose_X": True},
        grad=("X", "Y"),
        name="matmul_vector_x_transposed",
    ),
    OpCase(
        "matmul_v2",
        {"X": _vx, "Y": _vx},
        lambda i, a: {"Out": np.array([i["X"] @ i["Y"]])},
        attrs={"trans_x": True, "trans_y": True},
        grad=("X", "Y"),
        name="matmul_v2_vectors_ignore_flags",
    ),
]


def _fused_ref(i, a):
    """Fluid's oneDNN matmul + transpose + reshape fuse: the product [B, H, M, N] times alpha, transposed to
    [B, M, H, N] by its oneDNN kernel (use_mkldnn; its plain kernel leaves the values in place), reshaped."""
    out = a["alpha"] * np.matmul(i["X"], i["Y"])
    b, m = out.shape[0], out.shape[2]  # Out is [B, M, H * N] either way
    return {"Out": (out.transpose(0, 2, 1, 3) if a.get("use_mkldnn") else out).reshape(b, m, -1)}


_FUSED = {"fused_transpose_Out": [0, 2, 1, 3], "fused_reshape_Out": [0, 0, 12], "alpha": 0.5}
_fx, _fy = np.random.default_rng(55).normal(size=(2, 3, 4, 5)), np.random.default_rng(56).normal(size=(2, 3, 5, 4))
CASES += [
    OpCase(
        "matmul",
        {"X": _fx, "Y": _fy},
        _fused_ref,
        attrs=dict(_FUSED, use_mkldnn=True),
        grad=("X", "Y"),
        name="matmul_fused_transpose_reshape_onednn",
    ),
    OpCase(
        "matmul",
        {"X": _fx, "Y": _fy},
        _fused_ref,
        attrs=dict(_FUSED, use_mkldnn=False),
        grad=("X", "Y"),
        name="matmul_fused_reshape_plain_kernel",
    ),
]
