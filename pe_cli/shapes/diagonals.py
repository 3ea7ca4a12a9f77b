"""Meta rules of the diagonal ops (ops/diagonals.py: diag_v2, diagonal, fill_diagonal and their gradients;
structured kernels, shapes/structured.py; CPU out-kernels: kernels/cpu/diagonals.py): the outputs' shapes and
dtypes from the inputs' (a diagonal's shape: numpy's diagonal of an array of X's shape that holds no values),
the variant, and the positions the out-kernel writes (``args``), decided once per shape signature."""

import numpy as np

from .structured import Meta


def _diagonal_shape(shape, dtype, offset, a1=0, a2=1):
    """The shape of numpy's diagonal of an array of ``shape`` (its refusals: fewer than two dims, equal axes)."""
    return np.diagonal(np.broadcast_to(np.empty((), dtype), tuple(shape)), offset, a1, a2).shape


def _places(n, offset):
    """The (row, column) positions of an offset diagonal of length ``n``."""
    i = np.arange(n)
    return i + max(-offset, 0), i + max(offset, 0)


def diag_v2_meta(attrs, ins, facts):
    """diag_v2: a vector X to an [n + |offset|] square matrix ("matrix": padding_value, X at the positions
    ``args``), a matrix to its offset diagonal ("diagonal": args the offset)."""
    x, k = ins["X"], int(attrs["offset"])
    if len(x.shape) == 1:
        n = x.shape[0] + abs(k)
        rows = np.arange(x.shape[0]) + max(-k, 0)
        return Meta({"Out": ((n, n), x.dtype)}, "matrix", args=(rows, rows + k))
    return Meta({"Out": (_diagonal_shape(x.shape, x.dtype, k), x.dtype)}, "diagonal", args=(k, 0, 1))


def diag_v2_grad_meta(attrs, ins, facts):
    """diag_v2_grad: X@GRAD (X's shape, Out@GRAD's dtype): a vector's the offset diagonal of Out@GRAD ("diagonal"),
    a matrix's Out@GRAD placed on its diagonal in zeros ("place": at the positions of Out@GRAD's size, as the
    kernel always placed them)."""
    x, d, k = ins["X"], ins["Out@GRAD"], int(attrs["offset"])
    if len(x.shape) == 1:
        return Meta({"X@GRAD": (tuple(x.shape), d.dtype)}, "diagonal", args=(k, 0, 1))
    rows, cols = _places(int(np.prod(d.shape)), k)
    return Meta({"X@GRAD": (tuple(x.shape), d.dtype)}, "place", args=(rows, cols))


def _axes(attrs, ndim):
    return attrs["axis1"] % ndim, attrs["axis2"] % ndim


def diagonal_meta(attrs, ins, facts):
    """diagonal: the offset diagonal of Input's planes axis1 x axis2, appended as the last dim ("diagonal")."""
    x, k = ins["Input"], int(attrs["offset"])
    a1, a2 = _axes(attrs, len(x.shape))
    return Meta({"Out": (_diagonal_shape(x.shape, x.dtype, k, a1, a2), x.dtype)}, "diagonal", args=(k, a1, a2))


def diagonal_grad_meta(attrs, ins, facts):
    """diagonal_grad: Input@GRAD (Input's shape, Out@GRAD's dtype), Out@GRAD on the diagonal, zeros elsewhere."""
    x, d, k = ins["Input"], ins["Out@GRAD"], int(attrs["offset"])
    a1, a2 = _axes(attrs, len(x.shape))
    rows, cols = _places(d.shape[-1], k)
    return Meta({"Input@GRAD": (tuple(x.shape), d.dtype)}, "place", args=(a1, a2, rows, cols))


def fill_positions(shape, offset, wrap):
    """The flat positions Paddle 2.6's fill_diagonal writes: every stride-th element (stride: the sum of the
    dims' strides) up to n * n without wrap, offset along its row when that stays in the row."""
    size = int(np.prod(shape))
    n = shape[1]
    stride = sum(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
    if not wrap:
        size = min(size, n * n)
    pos = np.arange(0, size, stride)
    keep = (pos % n + offset >= 0) & (pos % n + offset < n)
    return pos[keep] + offset


def fill_diagonal_meta(attrs, ins, facts):
    """fill_diagonal: Out = X with ``value`` at Paddle's positions ("fill": args them)."""
    x = ins["X"]
    return Meta(
        {"Out": (tuple(x.shape), x.dtype)}, "fill", args=(fill_positions(x.shape, int(attrs["offset"]), attrs["wrap"]),)
    )


def fill_diagonal_grad_meta(attrs, ins, facts):
    """fill_diagonal_grad: X@GRAD = Out@GRAD with those positions 0."""
    d = ins["Out@GRAD"]
    return Meta(
        {"X@GRAD": (tuple(d.shape), d.dtype)},
        "fill",
        args=(fill_positions(d.shape, int(attrs["offset"]), attrs["wrap"]),),
    )
