"""Paddle 2.x's top-level linear algebra names over ops Fluid 1.x's layers lacked: ``inverse`` and
``cholesky`` of square matrices (ops/linalg.py), ``einsum`` (ops/einsum.py), and
``histogram`` (counts of x's values in equal bins)."""

from .. import layers as L
from ..layers.checks import check_type, check_variable_and_dtype
from ..layers.manipulation import reshape_variable
from ..layers.helper import LayerHelper, single as _single
from . import tensor_manip as TMP
from . import tensor_math as TM
from ..framework.program_release import paddle_face

__all__ = ["histogram", "inverse", "cholesky", "einsum", "cdist"]

_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """The p-norm distance of every row of x [..., R1, C] to every row of y [..., R2, C]: [..., R1, R2].
    As Paddle 2.6.2 builds it: for p = 2 through a matrix product (|x|^2 + |y|^2 - 2 x y^T, clipped at
    0, its square root) with compute_mode 'use_mm_for_euclid_dist', or with the default when R1 or R2
    exceeds 25; else the norm of the differences (paddle.norm's ops: pe composes the p-norm that
    Paddle's p_norm op computes)."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "cdist")
    check_variable_and_dtype(y, "y", ("float32", "float64"), "cdist")
    check_type(p, "p", (float, int), "cdist")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(
            f"The compute_mode should be {', '.join(repr(m) for m in _CDIST_MODES)}, but received "
            f"compute_mode is {compute_mode}."
        )
    if len(x.shape) < 2 or len(y.shape) < 2 or x.shape[-1] != y.shape[-1] or p < 0:
        raise ValueError(
            f"paddle.cdist: x {list(x.shape)} and y {list(y.shape)} must be at least 2-D with the same "
            f"last dim, and p={p} >= 0"
        )
    r1, r2 = x.shape[-2], y.shape[-2]
    if p == 2.0 and (compute_mode == _CDIST_MODES[1] or (compute_mode == _CDIST_MODES[0] and (r1 > 25 or r2 > 25))):
        x_norm = TM.sum(TM.pow(x, 2), axis=-1, keepdim=True)
        y_norm = TM.sum(TM.pow(y, 2), axis=-1, keepdim=True)
        swap = list(range(len(y.shape) - 2)) + [len(y.shape) - 1, len(y.shape) - 2]
        res = TM.add(TM.add(L.scale(TM.matmul(x, TMP.transpose(y, swap)), -2.0), TMP.transpose(y_norm, swap)), x_norm)
        return L.sqrt(TM.clip(res, min=0.0), name=name)
    diff = TM.subtract(TMP.unsqueeze(x, -2), TMP.unsqueeze(y, -3))
    return TM.norm(diff, p=float(p), axis=-1, name=name)


def inverse(x, name=None):
    """The inverse of each square matrix in x's last two dims (an error names a singular one)."""
    helper = LayerHelper("inverse", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("inverse", {"Input": [x]}, {"Output": [out]})
    return out


def cholesky(x, upper=False, name=None):
    """L with L L^T = x (or U = L^T when ``upper``) for each symmetric positive-definite matrix in
    x's last two dims (x is read as (x + x^T) / 2; an error names one that is not positive definite)."""
    return _single("cholesky", x, {"X": [x]}, {"upper": bool(upper)}, name=name)


def einsum(equation, *operands):
    """numpy's einsum of the operands (a list or tuple of them, or them one by one) by ``equation``
    (the einsum op: '...' broadcasts, an implicit output when there is no '->'; a full contraction
    is [1])."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"paddle.einsum: equation must be a str, got {type(equation).__name__}")
    helper = LayerHelper("einsum", name=None)
    out = helper.create_variable_for_type_inference(operands[0].dtype)
    helper.append_op("einsum", {"Operands": list(operands)}, {"Out": [out]}, {"equation": equation})
    return out


@paddle_face
def histogram(input, bins=100, min=0, max=0, name=None):  # noqa: A002 -- Paddle's names
    """The int64 counts of input's values in ``bins`` equal bins over [min, max] (the last bin
    closed); min == max: over [input's min, input's max] (widened by 1 each way when they are
    equal too). Values outside are not counted."""
    x = reshape_variable(input, [-1])
    if not x.dtype.startswith("float"):
        x = L.cast(x, "float64")
    if min == max:
        lo, hi = L.reduce_min(x), L.reduce_max(x)
    else:
        lo, hi = L.fill_constant([1], x.dtype, min), L.fill_constant([1], x.dtype, max)
    same = L.cast(L.equal(lo, hi), x.dtype)
    lo, hi = L.elementwise_sub(lo, same), L.elementwise_add(hi, same)
    ids = L.cast(
        L.floor(L.elementwise_div(L.scale(L.elementwise_sub(x, lo), scale=float(bins)), L.elementwise_sub(hi, lo))),
        "int64",
    )
    inside = L.cast(L.logical_and(L.greater_equal(x, lo), L.less_equal(x, hi)), "int64")
    ids = L.elementwise_min(ids, L.fill_constant([1], "int64", bins - 1))  # x == hi: the last bin
    ids = L.elementwise_add(L.elementwise_mul(ids, inside), L.scale(inside, scale=-float(bins), bias=float(bins)))
    rows = L.one_hot(reshape_variable(ids, [-1, 1]), depth=int(bins), allow_out_of_range=True)
    return L.cast(L.reduce_sum(rows, dim=0), "int64")
