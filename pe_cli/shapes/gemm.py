"""The meta rules of the GEMM ops, structured kernels (shapes/structured.py): mul, mul_grad,
fused_gemm_epilogue and fused_gemm_epilogue_grad. From the attributes and the inputs' shapes and dtypes, once
per shape signature: each output's shape and dtype, and the products that compute them (``Meta.args``: a
tuple of ``Product``, then the bias gradient's ``BiasSum`` or None), each with the 2-D views of its operands
(x_num_col_dims / y_num_col_dims, fused_gemm_epilogue's flattening of X), its transposes, which of its
blocks are a weight's rows, its epilogue and the path that computes it:

- "gemm": float32 or float64 operands of one dtype, an inner dimension above 1 and a result not empty:
  kernels/cpu/gemm.product_into, a large one in blocks on the device's threads (each block calling BLAS
  single-threaded, _blas_loops.py), a small one one call of numpy's BLAS;
- "outer": the same with an inner dimension of 1: _blas_loops.outer, numpy's outer product's bits;
- "numpy": the rest (other dtypes, mixed dtypes, empty values): numpy's product, in its result's dtype.

The variant: ONE_PRODUCT where the op is one product with no epilogue (mul's forward, one of its gradients),
else PRODUCTS. The CPU out-kernels are kernels/cpu/gemm.py's. A rule refuses nothing: the shape rules did when the op was
appended."""

import math
from typing import NamedTuple

import numpy as np

from .linalg import gemm_rows
from .structured import Meta

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

# which blocks of a product are blocks of a weight's rows (kernels/cpu/gemm.split_mode)
ROWS, COLS, INNER = "rows", "cols", "inner"
# a product's epilogue (_blas_loops.py): after the bias, nothing, relu, or relu's gradient (a gate)
NO_ACT, RELU, RELU_GRAD = 0, 1, 2
GEMM, OUTER, NUMPY = "gemm", "outer", "numpy"
# the variants: one product with no epilogue and no bias sum, or any products (and the bias sum)
ONE_PRODUCT, PRODUCTS = "one_product", "products"


class Product(NamedTuple):
    """out = op(a) @ op(b) into the output slot ``out`` viewed as [m, n]: ``a`` and ``b`` input slots viewed
    as ``a_shape`` and ``b_shape`` (conjugated where ``conj_*``: complex values' gradients), op a transpose
    where ``trans_*``; ``rows``: which blocks are a weight's rows (INNER, COLS or None); then + the input
    ``bias`` (a row) and ``act`` (``gate``: the input viewed as [m, n] that relu's gradient reads);
    ``path``: GEMM, OUTER or NUMPY (above); ``mn``: the result's [m, n]."""

    out: str
    a: str
    a_shape: tuple
    b: str
    b_shape: tuple
    trans_a: bool = False
    trans_b: bool = False
    rows: object = None
    path: str = NUMPY
    bias: object = None
    act: int = NO_ACT
    gate: object = None
    conj_a: bool = False
    conj_b: bool = False
    mn: tuple = ()  # the result's [m, n]


def _mn(a_shape, b_shape, trans_a, trans_b):
    return (a_shape[1] if trans_a else a_shape[0], b_shape[0] if trans_b else b_shape[1])


class BiasSum(NamedTuple):
    """The bias's gradient: the input ``d`` viewed as [rows, n] summed over its rows into ``out``; ``loop``:
    float32 or float64 (_pointwise_loops.sum_outer), else numpy's sum."""

    out: str
    d: str
    rows: int
    n: int
    loop: bool


def product_path(m, n, k, a_dtype, b_dtype):
    """The path of a product of [m, k] by [k, n] operands of those dtypes (above)."""
    if a_dtype != b_dtype or a_dtype not in _FLOATS:
        return NUMPY
    if k == 1:
        return OUTER
    return GEMM if k > 1 and m * n else NUMPY


def product_dtype(path, a_dtype, b_dtype):
    """The dtype of a product's result: the operands' on the float paths, numpy's matmul's else."""
    return np.dtype(a_dtype) if path != NUMPY else np.result_type(a_dtype, b_dtype)


def product(out, a, a_shape, b, b_shape, ins, trans_a=False, trans_b=False, rows=None, **epilogue):
    """The Product (its path decided) of the inputs ``a`` and ``b`` (``ins``: slot -> shape and dtype), and
    its result's dtype."""
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    (m, n), k = _mn(a_shape, b_shape, trans_a, trans_b), a_shape[0] if trans_a else a_shape[1]
    a_dtype, b_dtype = np.dtype(ins[a].dtype), np.dtype(ins[b].dtype)
    path = product_path(m, n, k, a_dtype, b_dtype)
    spec = Product(out, a, a_shape, b, b_shape, trans_a, trans_b, rows, path, **epilogue, mn=(m, n))
    return spec, product_dtype(path, a_dtype, b_dtype)


def _meta(outputs, specs, bias_sum=None):
    """The Meta of ``specs`` (and ``bias_sum``): ONE_PRODUCT where that is all, else PRODUCTS."""
    s = specs[0] if len(specs) == 1 and bias_sum is None else None
    one = s is not None and s.bias is None and s.act == NO_ACT and s.gate is None and not (s.conj_a or s.conj_b)
    return Meta(outputs, ONE_PRODUCT if one else PRODUCTS, args=(tuple(specs), bias_sum))


def _matrix(shape, dims):
    return (math.prod(shape[:dims]), math.prod(shape[dims:]))


def _complex(value):
    return np.dtype(value.dtype).kind == "c"


def mul_meta(attrs, ins, facts):
    """mul: Out = X as [rows, cols] (x_num_col_dims) @ Y as a matrix (y_num_col_dims), of X's leading dims
    and Y's trailing ones; its blocks by the weight's rows (INNER)."""
    x, y = tuple(ins["X"].shape), tuple(ins["Y"].shape)
    xd, yd = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    spec, dtype = product("Out", "X", _matrix(x, xd), "Y", _matrix(y, yd), ins, rows=INNER)
    return _meta({"Out": (x[:xd] + y[yd:], dtype)}, (spec,))


def mul_grad_meta(attrs, ins, facts):
    """mul_grad: X@GRAD = dOut @ Y^T (blocks by the weight's rows: COLS), Y@GRAD = X^T @ dOut, as matrices, the
    ones the op writes (``facts.wanted``); Y (X) conjugated where complex."""
    x, y, d = tuple(ins["X"].shape), tuple(ins["Y"].shape), tuple(ins["Out@GRAD"].shape)
    xd, yd = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    wanted = facts.wanted(("X@GRAD", "Y@GRAD"))
    outputs, specs = {}, []
    x2, y2 = _matrix(x, xd), _matrix(y, yd)
    if "X@GRAD" in wanted:
        d2 = (math.prod(d) // max(y2[1], 1), y2[1])
        conj = _complex(ins["Y"])
        spec, dtype = product("X@GRAD", "Out@GRAD", d2, "Y", y2, ins, trans_b=True, rows=COLS, conj_b=conj)
        outputs["X@GRAD"] = (x, dtype)
        specs.append(spec)
    if "Y@GRAD" in wanted:
        d2 = (x2[0], math.prod(y[yd:]))
        spec, dtype = product("Y@GRAD", "X", x2, "Out@GRAD", d2, ins, trans_a=True, conj_a=_complex(ins["X"]))
        outputs["Y@GRAD"] = (y, dtype)
        specs.append(spec)
    return _meta(outputs, specs)


def fused_gemm_meta(attrs, ins, facts):
    """fused_gemm_epilogue: Out = act(op(X) @ op(Y) + Bias), X flattened as gemm_rows says; blocks by the
    weight's rows (INNER) where neither is transposed."""
    tx, ty = attrs["trans_x"], attrs["trans_y"]
    rows, stored = gemm_rows(ins["X"].shape, tx)
    act = RELU if attrs["activation"] == "relu" else NO_ACT
    y = tuple(ins["Y"].shape)
    weight = None if tx or ty else INNER
    spec, dtype = product("Out", "X", stored, "Y", y, ins, tx, ty, weight, bias="Bias", act=act)
    return _meta({"Out": (tuple(rows) + spec.mn[1:], dtype)}, (spec,))


def fused_gemm_grad_meta(attrs, ins, facts):
    """fused_gemm_epilogue_grad: DBias (DOut summed over its rows), DY (op(Y)'s gradient op(X)^T @ d; Y stored
    [N, K] takes its transpose) and DX (d @ op(Y)^T, or op(Y) @ d^T with trans_x; zeroed where X is not > 0
    with relu_grad; blocks by the weight's rows, COLS, where neither is transposed), the ones the op writes."""
    tx, ty = attrs["trans_x"], attrs["trans_y"]
    x, y, dout = tuple(ins["X"].shape), tuple(ins["Y"].shape), tuple(ins["DOut"].shape)
    wanted = facts.wanted(("DX", "DY", "DBias"))
    x2, n = gemm_rows(x, tx)[1], dout[-1]
    d = (math.prod(dout) // max(n, 1), n)
    outputs, specs, bias = {}, [], None
    if "DBias" in wanted:
        loop = np.dtype(ins["DOut"].dtype) in _FLOATS
        bias = BiasSum("DBias", "DOut", d[0], n, loop)
        outputs["DBias"] = ((n,), np.dtype(ins["DOut"].dtype))
    if "DY" in wanted:
        if ty:
            spec, dtype = product("DY", "DOut", d, "X", x2, ins, True, tx)
        else:
            spec, dtype = product("DY", "X", x2, "DOut", d, ins, not tx, False)
        outputs["DY"] = (y, dtype)
        specs.append(spec)
    if "DX" in wanted:
        act = RELU_GRAD if attrs["activation_grad"] == "relu_grad" else NO_ACT
        gate = "X" if act == RELU_GRAD else None
        if tx:
            spec, dtype = product("DX", "Y", y, "DOut", d, ins, ty, True, act=act, gate=gate)
        else:
            spec, dtype = product("DX", "DOut", d, "Y", y, ins, False, not ty, None if ty else COLS, act=act, gate=gate)
        outputs["DX"] = (x, dtype)
        specs.append(spec)
    return _meta(outputs, specs, bias)
