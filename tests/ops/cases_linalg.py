"""Op cases for matmul (transposes, alpha, batches with broadcasting, 1-D inputs), matmul_v2 and clip."""
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


CASES = [
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
    OpCase("matmul_v2", {"X": r(2, 3, 4), "Y": r(2, 5, 4)},
           lambda i, a: {"Out": np.matmul(i["X"], np.swapaxes(i["Y"], -1, -2))}, attrs={"trans_y": True},
           grad=("X", "Y"), name="matmul_v2_trans_y"),
    OpCase("matmul_v2", {"X": r(4, 3), "Y": r(4)},
           lambda i, a: {"Out": np.matmul(i["X"].T, i["Y"])}, attrs={"trans_x": True}, grad=("X", "Y"),
           name="matmul_v2_trans_x_1d_y"),
    OpCase("matmul", {"X": r(3, 4).astype(np.float32), "Y": r(4, 2).astype(np.float32)},
           lambda i, a: {"Out": i["X"] @ i["Y"]}, name="matmul_float32", rtol=1e-5, atol=1e-6),
    OpCase("clip", {"X": np.array([[-2.0, -0.9, -0.3, 0.2], [0.6, 0.75, 1.4, 3.0]])},
           lambda i, a: {"Out": np.clip(i["X"], -0.5, 0.7)}, attrs={"min": -0.5, "max": 0.7}, grad=("X",)),
    OpCase("clip", {"X": r(3, 4).astype(np.float32)},
           lambda i, a: {"Out": np.clip(i["X"], -1.0, 1.0).astype(np.float32)}, attrs={"min": -1.0, "max": 1.0},
           name="clip_float32"),
]
