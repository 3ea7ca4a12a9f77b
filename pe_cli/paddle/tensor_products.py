"""Paddle 2.x's products of tensors (``paddle.matmul``, ``paddle.mm``, ``paddle.bmm``, ``paddle.mv``, ``paddle.addmm``,
``paddle.dot``, ``paddle.t``, ``paddle.cross``, ``paddle.kron`` and 2.0-alpha's ``paddle.mul``) with 2.x's signatures,
built from pe's layers; tensor_math.py offers them with the other math names."""

from .. import layers as L
from ..base.errors import PeError
from ..layers.helper import single as _single
from ..layers.matrix import CROSS_DEFAULT_DIM, cross_along
from .alpha_keywords import renamed


@renamed(out=True)
def mul(x, y, x_num_col_dims=1, y_num_col_dims=1, name=None):
    """Paddle 2.0-alpha's paddle.mul: fluid.layers.mul (x and y flattened to matrices, multiplied)."""
    return L.mul(x, y, x_num_col_dims, y_num_col_dims, name=name)


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """x @ y (matmul_v2): batch dims broadcast, a 1-D operand is a vector (its dim dropped)."""
    return _single(
        "matmul_v2", x, {"X": [x], "Y": [y]}, {"trans_x": bool(transpose_x), "trans_y": bool(transpose_y)}, name=name
    )


@renamed(out=True)
def mm(input, mat2, name=None):
    return matmul(input, mat2, name=name)


def bmm(x, y, name=None):
    """Batched [B, M, K] @ [B, K, N]."""
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise PeError(f"paddle.bmm: x {list(x.shape)} and y {list(y.shape)} must both be 3-D")
    return L.bmm(x, y, name=name)


def mv(x, vec, name=None):
    """Matrix [M, N] times vector [N]: [M]."""
    return matmul(x, vec, name=name)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y); input broadcasts to the product's shape."""
    return L.addmm(input, x, y, alpha=alpha, beta=beta, name=name)


def dot(x, y, name=None):
    """The inner product along the last dim: [N] -> [] (0-D), [B, N] -> [B], as Paddle 2.6's (the dot op in a
    Paddle 2.x program; Fluid 1.8's kept the dim: [1], [B, 1])."""
    return L.dot(x, y, name=name)


def t(input, name=None):
    """The transpose of a matrix; a 0-D or 1-D tensor is returned as it is."""
    return L.t(input, name=name)


def cross(x, y, axis=None, name=None):
    """The cross product along ``axis`` (None: the first dim of size 3; 0 is dim 0, as Paddle 2.x's)."""
    return cross_along(x, y, CROSS_DEFAULT_DIM if axis is None else axis, name=name)


def kron(x, y, name=None):
    """The Kronecker product of two tensors (the one of lower rank gains leading dims of size 1)."""
    return L.kron(x, y, name=name)
