"""The matrix family's rules that its shape inference (ops/matrix.py) and the kernels of both devices
apply alike: cross's dim, trace's planes and diagonal, kron's shape."""

from ..base.dims import fmt_shape
from ..base.errors import PeError

# cross's dim when none is given (Fluid's DDim::kMaxRank): the first dim of size 3
CROSS_DEFAULT_DIM = 9


def cross_dim(shape, dim):
    """cross's dim at run time: the attribute, or (9, Fluid's default) the first dim of size 3."""
    if dim == CROSS_DEFAULT_DIM:
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise PeError(f"cross: X {list(shape)} has no dim of size 3 to take the cross product along")
        return dim
    if not -len(shape) <= dim < len(shape) or shape[dim] != 3:
        raise PeError(f"cross: dim={dim} of X {list(shape)} must name a dim of size 3")
    return dim % len(shape)


def trace_dims(rank, attrs):
    """The two dims of trace's planes, the smaller first, as Fluid 1.8's kernels take them whatever
    the order of dim1 and dim2 (a positive offset moves along the larger one)."""
    a, b = attrs["dim1"] % rank, attrs["dim2"] % rank
    return min(a, b), max(a, b)


def diagonal(shape, attrs):
    """(the planes' dims, the diagonal's first row, first column, length) of trace's diagonal."""
    lo, hi = trace_dims(len(shape), attrs)
    offset = attrs["offset"]
    row, col = max(-offset, 0), max(offset, 0)
    return (lo, hi), row, col, max(0, min(shape[lo] - row, shape[hi] - col))


def kron_shape(x, y):
    """The Kronecker product's shape: the shorter shape gets leading dims of 1, then dims multiply
    (-1 where either is unknown)."""
    rank = max(len(x), len(y))
    x, y = [1] * (rank - len(x)) + list(x), [1] * (rank - len(y)) + list(y)
    return [a * b if a >= 0 and b >= 0 else -1 for a, b in zip(x, y)]


def _differ(a, b):
    """Two dims that are both known (not -1 or None) and differ."""
    return a is not None and b is not None and a >= 0 and b >= 0 and a != b


def addmm_mismatch(inp, x, y):
    """Why addmm's Input, X and Y do not meet, or None: X's width must equal Y's height, and Input broadcasts
    to X @ Y along a dim only from a size of 1 (a 1-D Input is a row, as Paddle 2.x takes it). Unknown dims
    (-1 or None) pass."""
    if _differ(x[1], y[0]):
        return f"X {fmt_shape(x)}'s width must equal Y {fmt_shape(y)}'s height"
    row = [1] * (2 - len(inp)) + list(inp)
    for i, size in ((0, x[0]), (1, y[1])):
        if _differ(row[i], size) and row[i] != 1:
            return f"Input {fmt_shape(inp)} must broadcast to X @ Y [{x[0]}, {y[1]}] (dim {i}: 1 or {size})"
    return None


def cross_mismatch(x, y):
    """Why cross's X and Y do not meet (they must have one shape), or None. Unknown dims pass."""
    if len(x) != len(y) or any(_differ(a, b) for a, b in zip(x, y)):
        return f"X {fmt_shape(x)} and Y {fmt_shape(y)} must have the same shape"
    return None
