"""The meta rules of the matmul family, structured kernels (shapes/structured.py): matmul, matmul_v2, their
gradient ops matmul_grad, matmul_grad_x and matmul_grad_y, bmm and bmm_grad. From the attributes and the inputs'
shapes and dtypes, once per shape signature: each output's shape and dtype and the ``MatmulProduct`` that
computes it (``Meta.args``: one per output the op writes):

- its two operands (``Operand``: an input viewed as the product reads it: a 1-D X as a row, a 1-D Y as a column,
  the last two dims swapped where a transpose flag says, conjugated (complex gradients), Out@GRAD scaled by alpha,
  flattened to rows) and the transposes of the product op(a) @ op(b);
- its form: ROWS (a stack times one matrix: one GEMM of the stack's rows), MATRIX (two matrices: the 2-D product
  kernels/cpu/gemm.product_into runs by ``path``, shapes/gemm.product_path), STACKED (float stacks of one batch
  shape: the products split over the device's threads where the stack is large and the device has more than
  one, else numpy's matmul) or NUMPY (numpy's matmul: broadcast batch dims, other dtypes, empty values);
- what follows it: alpha (the forward's), the sum over broadcast dims (a gradient of a broadcast operand), the
  swap back of a transposed operand's gradient, Fluid's fused transpose of Out, the cast to the output's dtype.
  A product that needs any of these but alpha is computed into a scratch buffer (``MatmulProduct.temp``), the
  rest written from it into the output; else straight into the output.

Variants: PRODUCTS, or HEADS (Fluid 1.8's multi-head matmul, head_number > 1: a numpy form, ``fresh``). How an
operand is handed to BLAS (a transposed view as its C-contiguous base with the flag flipped, numpy's matmul's own
reading of strides) is the out-kernel's marshalling of each call's arrays, not a variant. The CPU out-kernels are
kernels/cpu/matmul.py's."""

import math
from typing import NamedTuple

import numpy as np

from ..base.errors import PeError
from .gemm import product_dtype, product_path
from .matrix import addmm_mismatch
from .linalg import matmul_flag, matmul_fused_out, matmul_v1_attrs
from .structured import Meta
from .reduction import scalar_shape

ROWS, MATRIX, STACKED, NUMPY = "rows", "matrix", "stacked", "numpy"
PRODUCTS, HEADS, ADDMM = "products", "heads", "addmm"
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_PLAIN = {"transpose_X": False, "transpose_Y": False, "alpha": 1.0}


class Operand(NamedTuple):
    """An input ``slot`` as a product reads it: reshaped to ``shape`` (None: as it is), its last two dims swapped
    (``swap``), conjugated (``conj``), moved from Fluid's fused [B, M, H, N] to [B, H, M, N] (``moved``: that
    shape), times ``scale`` (None: not), reshaped to ``flat`` (None: not), in that order."""

    slot: str
    shape: object = None
    swap: bool = False
    conj: bool = False
    moved: object = None
    scale: object = None
    flat: object = None


class MatmulProduct(NamedTuple):
    """out = op(a) @ op(b) into the output slot ``out`` (``form``, ``path``: above); ``shape``: the product's
    [..., M, N] and ``view``: the shape its form writes it as; ``mnk``: (batch, M, N, K); ``alpha``: the scalar
    it is multiplied by (None: none); ``temp``: the scratch buffer it is computed into (None: the output itself),
    then ``sum_axes`` summed and reshaped to ``summed`` (None: not), its last two dims swapped (``swap``) or
    Fluid's fused transpose applied (``fused``: the [B, M, H, N] it is moved to), copied into the output."""

    out: str
    a: Operand
    b: Operand
    trans_a: bool
    trans_b: bool
    form: str
    path: str
    shape: tuple
    view: tuple
    mnk: tuple
    alpha: object = None
    temp: object = None
    sum_axes: tuple = ()
    summed: object = None
    swap: bool = False
    fused: object = None


def _matrix_shape(shape, is_x):
    """A 1-D X as the row [1, K], a 1-D Y as the column [K, 1]."""
    if len(shape) == 1:
        return (1,) + shape if is_x else shape + (1,)
    return shape


def _swapped(shape, swap):
    return shape[:-2] + (shape[-1], shape[-2]) if swap else shape


def _batch(op, a, b):
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        raise PeError(f"{op}: batch dims {list(a)} and {list(b)} cannot broadcast") from None


def _form(a_shape, b_shape, trans_a, trans_b, a_dtype, b_dtype):
    """(form, path, product dtype, view, (batch, m, n, k)) of op(a) @ op(b) (``_product``'s choice)."""
    m, k = (a_shape[-1], a_shape[-2]) if trans_a else a_shape[-2:]
    n = b_shape[-2] if trans_b else b_shape[-1]
    if len(a_shape) > 2 and len(b_shape) == 2 and not trans_a and math.prod(a_shape):
        rows = math.prod(a_shape[:-1])
        path = product_path(rows, n, k, a_dtype, b_dtype)
        return ROWS, path, product_dtype(path, a_dtype, b_dtype), (rows, n), (1, rows, n, k)
    if len(a_shape) == 2 and len(b_shape) == 2:
        path = product_path(m, n, k, a_dtype, b_dtype)
        return MATRIX, path, product_dtype(path, a_dtype, b_dtype), (m, n), (1, m, n, k)
    batch = math.prod(a_shape[:-2])
    if (
        len(a_shape) == len(b_shape)
        and a_shape[:-2] == b_shape[:-2]
        and a_dtype == b_dtype
        and a_dtype in _FLOATS
        and math.prod(a_shape)
        and math.prod(b_shape)
    ):
        return STACKED, NUMPY, a_dtype, None, (batch, m, n, k)
    return NUMPY, NUMPY, np.result_type(a_dtype, b_dtype), None, (batch, m, n, k)


def _product(out, a, b, shapes, dtypes, trans=(False, False), **post):
    """The MatmulProduct of ``a`` (of ``shapes[0]`` and ``dtypes[0]``) times ``b`` into ``out``, and its dtype."""
    (a_shape, b_shape), (ta, tb) = shapes, trans
    form, path, dtype, view, mnk = _form(a_shape, b_shape, ta, tb, *dtypes)
    batch = a_shape[:-1] if form == ROWS else () if form == MATRIX else _batch(out, a_shape[:-2], b_shape[:-2])
    shape = batch + (mnk[1], mnk[2]) if form != ROWS else batch + (mnk[2],)
    return MatmulProduct(out, a, b, ta, tb, form, path, shape, view or shape, mnk, **post), dtype


def _finish(spec, dtype, out_dtype, target):
    """``spec`` summed to ``target`` (the operand's [..., M, N] or [..., K, N]) where its product broadcast, with
    a scratch buffer where anything follows the product."""
    if spec.shape != target:
        lead = len(spec.shape) - len(target)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, d in enumerate(target) if d == 1 and spec.shape[i + lead] != 1
        )
        spec = spec._replace(sum_axes=axes, summed=target)
    if spec.summed is not None or spec.swap or spec.fused is not None or dtype != out_dtype:
        spec = spec._replace(temp="@" + spec.out)
    return spec


def _heads_shape(xm, ym, h):
    width = ym[-1] * h if ym[-2] == xm[-1] else ym[-1]
    return xm[:-1] + (width,)


def _operands(x, y, attrs):
    """X and Y as the product's [..., M, K] and [..., K, N] shapes, and their Operands."""
    tx, ty = matmul_flag(attrs, True), matmul_flag(attrs, False)
    xm, ym = _matrix_shape(x, True), _matrix_shape(y, False)
    xo = Operand("X", xm if len(x) == 1 else None, tx)
    yo = Operand("Y", ym if len(y) == 1 else None, ty)
    return _swapped(xm, tx), _swapped(ym, ty), xo, yo


def _forward(op, attrs, ins, zero_dim=False):
    x, y = tuple(ins["X"].shape), tuple(ins["Y"].shape)
    xd, yd = np.dtype(ins["X"].dtype), np.dtype(ins["Y"].dtype)
    xm, ym, xo, yo = _operands(x, y, attrs)
    if attrs.get("head_number", 1) > 1:
        return Meta({"Out": (_heads_shape(xm, ym, attrs["head_number"]), xd)}, HEADS, fresh=True)
    if xm[-1] != ym[-2]:
        raise PeError(
            f"{op}: X {list(x)} and Y {list(y)} cannot multiply: X's columns ({xm[-1]}) != Y's rows ({ym[-2]})"
        )
    _batch(op, xm[:-2], ym[:-2])
    alpha = None if attrs["alpha"] == 1.0 else xd.type(attrs["alpha"])
    spec, dtype = _product("Out", xo, yo, (xm, ym), (xd, yd), alpha=alpha)
    out = list(spec.shape)
    if len(x) == 1 and out[-2] == 1:  # a 1-D operand's dim of 1 is dropped (Fluid's rule)
        del out[-2]
    if len(y) == 1 and out[-1] == 1:
        del out[-1]
    out = tuple(out or scalar_shape(zero_dim))  # (two vectors: [1], 0-D where the op says so: matmul_v2's)
    fused = matmul_fused_out(attrs, out)
    if isinstance(fused, str):
        raise PeError(f"{op}: {fused}")
    if fused is not None and attrs.get("use_mkldnn"):  # Fluid's oneDNN kernel moves the values (_matmul_forms.py)
        b, h, m, n = out
        spec = spec._replace(fused=(b, m, h, n))
    out = tuple(fused or out)
    spec = _finish(spec, dtype, xd, spec.shape)
    scratch = {spec.temp: (spec.shape, dtype)} if spec.temp else {}
    return Meta({"Out": (out, xd)}, PRODUCTS, scratch=scratch, args=(spec,))


def _dout(attrs, shape, ins):
    """Out@GRAD as the gradient of the product [..., M, N] (``shape``): the moves of Fluid's fused transpose
    undone, times alpha."""
    dd = np.dtype(ins["Out@GRAD"].dtype)
    moved = None
    if matmul_fused_out(attrs, shape) is not None and attrs.get("use_mkldnn"):
        b, h, m, n = shape
        moved = (b, m, h, n)
    scale = None if attrs["alpha"] == 1.0 else dd.type(attrs["alpha"])
    return Operand("Out@GRAD", shape, moved=moved, scale=scale), dd


def _grad_x(attrs, ins, x, xm, ym, xo, yo, shape):
    """X@GRAD = d @ op(Y)^T summed to X's shape, swapped back where X is transposed."""
    d, dd = _dout(attrs, shape, ins)
    yd = np.dtype(ins["Y"].dtype)
    yo = yo._replace(conj=yd.kind == "c")
    spec, dtype = _product("X@GRAD", d, yo, (shape, ym), (dd, yd), (False, True))
    spec = spec._replace(swap=len(x) > 1 and matmul_flag(attrs, True))
    return _finish(spec, dtype, np.dtype(ins["X"].dtype), xm), dtype


def _grad_y(attrs, ins, y, xm, ym, xo, yo, shape):
    """Y@GRAD = op(X)^T @ d summed to Y's shape (a stack times one matrix: one GEMM of the rows), swapped back
    where Y is transposed."""
    d, dd = _dout(attrs, shape, ins)
    xd = np.dtype(ins["X"].dtype)
    xo = xo._replace(conj=xd.kind == "c")
    if len(ym) == 2 and len(xm) > 2 and math.prod(xm) and math.prod(shape):
        rows = (math.prod(xm[:-1]), xm[-1]), (math.prod(shape[:-1]), shape[-1])
        xo, d = xo._replace(flat=rows[0]), d._replace(flat=rows[1])
        spec, dtype = _product("Y@GRAD", xo, d, rows, (xd, dd), (True, False))
    else:
        spec, dtype = _product("Y@GRAD", xo, d, (xm, shape), (xd, dd), (True, False))
    spec = spec._replace(swap=len(y) > 1 and matmul_flag(attrs, False))
    return _finish(spec, dtype, np.dtype(ins["Y"].dtype), ym), dtype


def _grads(op, attrs, ins, wanted):
    x, y = tuple(ins["X"].shape), tuple(ins["Y"].shape)
    xm, ym, xo, yo = _operands(x, y, attrs)
    outputs = {s: (x if s == "X@GRAD" else y, np.dtype(ins[s[0]].dtype)) for s in ("X@GRAD", "Y@GRAD") if s in wanted}
    if attrs.get("head_number", 1) > 1:
        return Meta(outputs, HEADS, fresh=True)
    shape = _batch(op, xm[:-2], ym[:-2]) + (xm[-2], ym[-1])
    specs, scratch = [], {}
    for slot, rule in (("X@GRAD", _grad_x), ("Y@GRAD", _grad_y)):
        if slot in wanted:
            spec, dtype = rule(attrs, ins, x if slot == "X@GRAD" else y, xm, ym, xo, yo, shape)
            specs.append(spec)
            if spec.temp:
                scratch[spec.temp] = (spec.shape, dtype)
    return Meta(outputs, PRODUCTS, scratch=scratch, args=tuple(specs))


def matmul_meta(attrs, ins, facts):
    """matmul: Out = alpha * op(X) @ op(Y) (above)."""
    return _forward("matmul", attrs, ins)


def matmul_v2_meta(attrs, ins, facts):
    """matmul_v2: matmul with trans_x and trans_y (a 1-D operand's flag doing nothing), alpha 1; two vectors give
    0-D in a Paddle 2.x program (``facts.zero_dim``), as Paddle 2.6's."""
    v1 = matmul_v1_attrs(attrs, len(ins["X"].shape), len(ins["Y"].shape))
    return _forward("matmul_v2", v1, ins, facts.zero_dim)


def matmul_grad_meta(attrs, ins, facts):
    """matmul_grad: X@GRAD and Y@GRAD, the ones the op writes (``facts.wanted``)."""
    return _grads("matmul_grad", attrs, ins, facts.wanted(("X@GRAD", "Y@GRAD")))


def matmul_grad_x_meta(attrs, ins, facts):
    return _grads("matmul_grad_x", attrs, ins, ("X@GRAD",))


def matmul_grad_y_meta(attrs, ins, facts):
    return _grads("matmul_grad_y", attrs, ins, ("Y@GRAD",))


def bmm_meta(attrs, ins, facts):
    """bmm: Out[b] = X[b] @ Y[b], matmul's product of two stacks."""
    return _forward("bmm", _PLAIN, ins)


def bmm_grad_meta(attrs, ins, facts):
    """bmm_grad: both gradients, always (as its kernel always wrote them)."""
    return _grads("bmm_grad", _PLAIN, ins, ("X@GRAD", "Y@GRAD"))


def addmm_meta(attrs, ins, facts):
    """addmm: Out = Alpha * X @ Y (matmul's product of two matrices), then plus Beta * Input (``args``: the
    product, Beta as X's dtype's scalar)."""
    inp, x, y = ins["Input"], ins["X"], ins["Y"]
    if error := addmm_mismatch(tuple(inp.shape), tuple(x.shape), tuple(y.shape)):
        raise PeError(f"addmm: {error}")
    product = _forward("addmm", dict(_PLAIN, alpha=float(attrs["Alpha"])), ins)
    beta = np.dtype(x.dtype).type(attrs["Beta"])
    return product._replace(variant=ADDMM, args=(*product.args, beta))


def addmm_grad_meta(attrs, ins, facts):
    """addmm_grad: X@GRAD and Y@GRAD, matmul's gradients of Alpha * X @ Y; Input@GRAD = Out@GRAD summed to
    Input's shape times Beta (``args``: the products, then Beta as Out@GRAD's dtype's scalar)."""
    grads = _grads("addmm_grad", dict(_PLAIN, alpha=float(attrs["Alpha"])), ins, ("X@GRAD", "Y@GRAD"))
    inp, d = ins["Input"], ins["Out@GRAD"]
    outputs = {"Input@GRAD": (tuple(inp.shape), np.dtype(inp.dtype)), **grads.outputs}
    beta = np.dtype(d.dtype).type(attrs["Beta"])
    return grads._replace(outputs=outputs, variant=ADDMM, args=(*grads.args, beta))
