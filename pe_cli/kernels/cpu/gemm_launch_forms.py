"""Launch forms of the GEMM ops (launch_forms.py): mul, fused_gemm_epilogue and their gradients, as
linalg.matmul2d runs them (the same split, blocks and loop; numpy's product as one call of numpy's
BLAS from the blocked loop with one block; the outer product's loop where the inner dimension is 1)."""

import math

import numpy as np

from ...shapes.linalg import gemm_rows
from .runtime import cblas
from . import linalg
from .runtime.loops import lazy, parallel_threads
from .launches import FLOATS as _FLOATS
from .launches import Launch
from .launches import flat as _flat
from .launches import floats as _floats
from .launches import one as _one

_pointwise = lazy("_pointwise_loops")
_blas = lazy("_blas_loops")


def gemm(table, a, a_shape, b, b_shape, c, trans_a=False, trans_b=False, weight_rows=None, epilogue=None):
    """The launches of matmul2d(a viewed as a_shape, b as b_shape) into c, or None; ``epilogue``:
    (bias name or None, act, gate name or None), matmul2d's bias, act and gate."""
    m, k = (a_shape[1], a_shape[0]) if trans_a else a_shape
    n = b_shape[0] if trans_b else b_shape[1]
    dtype = table[a][1]
    if dtype not in _FLOATS or table[b][1] != dtype or not m * n * k:
        return None
    bias, act, gate = epilogue or (None, linalg.NO_ACT, None)
    if any(name is not None and table[name][1] != dtype for name in (bias, gate)):
        return None
    ends = [
        ("var", bias, (n,)) if bias is not None else ("array", np.empty(0, dtype)),
        ("var", gate, (m, n)) if gate is not None else ("array", np.empty((0, 0), dtype)),
        ("const", act),
    ]
    if k == 1:  # numpy's outer product, then the epilogue on all of c (matmul2d)
        launches = [Launch(_blas().outer, [("var", a, (m,)), ("var", b, (n,)), ("var", c, (m, n))], writes=[c])]
        if bias is not None or act != linalg.NO_ACT:
            args = [("var", c, (m, n)), ("const", 0), ("const", m), ("const", 0), ("const", n), *ends]
            launches.append(Launch(_blas()._epilogue, args))
        return launches
    fn = None
    if m * n * k >= linalg.threads.SPLIT_GEMM_MACS:
        mode, parts, fn = linalg.blocked_gemm(m, n, k, dtype, weight_rows)
    if fn is None:  # numpy's product: one call of numpy's BLAS on one thread (threads.for_gemm)
        if cblas.source() != cblas.NUMPY:
            return None
        mode, parts, fn = linalg.ROWS, 1, cblas.gemm(dtype)
    ta = cblas.TRANS if trans_a else cblas.NO_TRANS
    tb = cblas.TRANS if trans_b else cblas.NO_TRANS
    head = [("const", fn), ("const", ta), ("const", tb), ("var", a, a_shape), ("var", b, b_shape), ("var", c, (m, n))]
    twin = parts > 1 and parallel_threads() > 1  # matmul2d's choice: its blocks on the device's threads
    if mode == linalg.INNER and parts > 1:
        partial = ("array", np.empty((parts, m, n), dtype))
        loop = _blas().gemm_k_blocks_parallel if twin else _blas().gemm_k_blocks
        return [Launch(loop, [*head, partial, *ends, ("const", parts)], writes=[c])]
    loop = _blas().gemm_blocks_parallel if twin else _blas().gemm_blocks
    return [Launch(loop, [*head, *ends, ("const", parts), ("const", mode == linalg.COLS)], writes=[c])]


def _matrix(shape, dims):
    return (math.prod(shape[:dims]), math.prod(shape[dims:]))


def mul(op, table):
    x, y, out = _one(op, "X"), _one(op, "Y"), _one(op, "Out", "outputs")
    if not _floats(table, x, y, out):
        return None
    xd, yd = op.attrs["x_num_col_dims"], op.attrs["y_num_col_dims"]
    return gemm(table, x, _matrix(table[x][0], xd), y, _matrix(table[y][0], yd), out, weight_rows=linalg.INNER)


def mul_grad(op, table):
    x, y, dout = _one(op, "X"), _one(op, "Y"), _one(op, "Out@GRAD")
    dx, dy = _one(op, "X@GRAD", "outputs"), _one(op, "Y@GRAD", "outputs")
    if not _floats(table, x, y, dout) or (dx is None and dy is None):
        return None
    xd, yd = op.attrs["x_num_col_dims"], op.attrs["y_num_col_dims"]
    x2, y2, size = _matrix(table[x][0], xd), _matrix(table[y][0], yd), math.prod(table[dout][0])
    parts = []
    if dx is not None:
        d2 = (size // max(y2[1], 1), y2[1])
        parts.append(gemm(table, dout, d2, y, y2, dx, trans_b=True, weight_rows=linalg.COLS))
    if dy is not None:
        parts.append(gemm(table, x, x2, dout, (x2[0], y2[1]), dy, trans_a=True))
    return None if any(p is None for p in parts) else [launch for p in parts for launch in p]


def fused_gemm_epilogue(op, table):
    """X @ Y + Bias, then relu where asked, in the GEMM's blocks (fused.fused_gemm_epilogue)."""
    x, y, bias, out = _one(op, "X"), _one(op, "Y"), _one(op, "Bias"), _one(op, "Out", "outputs")
    if not _floats(table, x, y, bias, out) or len(table[y][0]) != 2:
        return None
    tx, ty = op.attrs["trans_x"], op.attrs["trans_y"]
    act = linalg.RELU if op.attrs["activation"] == "relu" else linalg.NO_ACT
    stored = gemm_rows(table[x][0], tx)[1]
    rows = None if tx or ty else linalg.INNER
    return gemm(table, x, stored, y, table[y][0], out, tx, ty, rows, epilogue=(bias, act, None))


def fused_gemm_epilogue_grad(op, table):
    """fused.fused_gemm_epilogue_grad's products and bias sum, the same loops."""
    dout, x, y = _one(op, "DOut"), _one(op, "X"), _one(op, "Y")
    dx, dy, dbias = (_one(op, slot, "outputs") for slot in ("DX", "DY", "DBias"))
    if not _floats(table, dout, x, y) or len(table[y][0]) != 2 or not table[dout][0]:
        return None
    tx, ty = op.attrs["trans_x"], op.attrs["trans_y"]
    x2, n = gemm_rows(table[x][0], tx)[1], table[dout][0][-1]
    d = (math.prod(table[dout][0]) // max(n, 1), n)
    parts = []
    if dbias is not None:
        parts.append([Launch(_pointwise().sum_outer, [("var", dout, (*d, 1)), _flat(table, dbias)], writes=[dbias])])
    if dy is not None:
        if ty:
            parts.append(gemm(table, dout, d, x, x2, dy, True, tx))
        else:
            parts.append(gemm(table, x, x2, dout, d, dy, not tx, False))
    if dx is not None:
        act = linalg.RELU_GRAD if op.attrs["activation_grad"] == "relu_grad" else linalg.NO_ACT
        gate = x if act == linalg.RELU_GRAD else None
        if tx:
            parts.append(gemm(table, y, table[y][0], dout, d, dx, ty, True, epilogue=(None, act, gate)))
        else:
            rows = None if ty else linalg.COLS
            parts.append(gemm(table, dout, d, y, table[y][0], dx, False, not ty, rows, epilogue=(None, act, gate)))
    return None if any(p is None for p in parts) else [launch for p in parts for launch in p]
