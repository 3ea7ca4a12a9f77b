"""The matrix family's rules that its shape inference (ops/matrix.py) and the kernels of both devices
apply alike: cross's dim, trace's planes and diagonal, kron's shape."""

import numpy as np

from ..base.dims import fmt_shape
from ..base.errors import PeError
from .structured import Meta

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


# -- the meta rules of the structured kernels (shapes/structured.py; CPU out-kernels: kernels/cpu/matrix.py) ----
# Each decides once per shape signature the outputs' shapes and dtypes and the variant: "out" (numpy's ufuncs and
# einsum written through their ``out=``) where every value the op reads and writes is of one dtype, else "fresh"
# (the numpy form computed in the dtype numpy gives, then cast to the output's: a ``fresh`` variant).


def _one_dtype(*dtypes):
    return len({np.dtype(d) for d in dtypes}) == 1


def _variant(outputs, *dtypes, **kw):
    same = _one_dtype(*dtypes, *(spec[1] for spec in outputs.values()))
    return Meta(outputs, "out" if same else "fresh", fresh=not same, **kw)


def dot_meta(attrs, ins, facts):
    """dot: the sum of X * Y along the last dim, kept as a dim of 1 (dropped in a Paddle 2.x program,
    ``facts.paddle2``: [N] -> 0-D, as Paddle 2.6's); "out" where the product is of X's dtype, summed into Out."""
    x, y = ins["X"], ins["Y"]
    shape = tuple(x.shape[:-1]) + (() if facts.paddle2 else (1,))
    product = np.result_type(x.dtype, y.dtype)
    outputs = {"Out": (shape, np.dtype(x.dtype))}
    if product != np.dtype(x.dtype):
        return Meta(outputs, "fresh", fresh=True, args=(not facts.paddle2,))
    return Meta(outputs, "out", args=(not facts.paddle2,))


def dot_grad_meta(attrs, ins, facts):
    """dot_grad: X@GRAD = Out@GRAD * conj(Y), Y@GRAD = Out@GRAD * conj(X) (Out@GRAD as a column)."""
    x, y, d = ins["X"], ins["Y"], ins["Out@GRAD"]
    outputs = {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype)), "Y@GRAD": (tuple(y.shape), np.dtype(y.dtype))}
    return _variant(outputs, x.dtype, y.dtype, d.dtype, args=(tuple(x.shape[:-1]) + (1,),))


def cross_meta(attrs, ins, facts):
    """cross: numpy's cross product along cross_dim (a numpy form with no out=: ``fresh``)."""
    x, y = ins["X"], ins["Y"]
    if error := cross_mismatch(tuple(x.shape), tuple(y.shape)):
        raise PeError(f"cross: {error}")
    axis = cross_dim(x.shape, attrs["dim"])
    return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "fresh", fresh=True, args=(axis,))


def cross_grad_meta(attrs, ins, facts):
    """cross_grad: X@GRAD = Y x Out@GRAD, Y@GRAD = Out@GRAD x X (``fresh``)."""
    x, y = ins["X"], ins["Y"]
    outputs = {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype)), "Y@GRAD": (tuple(y.shape), np.dtype(y.dtype))}
    return Meta(outputs, "fresh", fresh=True, args=(cross_dim(x.shape, attrs["dim"]),))


def _kron_ranked(x, y):
    """X's and Y's shapes, the one of lower rank with leading dims of 1."""
    rank = max(len(x), len(y))
    return (1,) * (rank - len(x)) + tuple(x), (1,) * (rank - len(y)) + tuple(y)


def kron_meta(attrs, ins, facts):
    """kron: X [.., a, ..] times Y [.., b, ..] as [.., a, 1, ..] * [.., 1, b, ..] written into Out [.., a*b, ..]
    (``args``: the two operands' shapes and Out's interleaved shape)."""
    x, y = ins["X"], ins["Y"]
    xs, ys = _kron_ranked(x.shape, y.shape)
    shapes = (tuple(d for a in xs for d in (a, 1)), tuple(d for b in ys for d in (1, b)))
    inter = tuple(d for a, b in zip(xs, ys) for d in (a, b))
    outputs = {"Out": (tuple(a * b for a, b in zip(xs, ys)), np.dtype(x.dtype))}
    return _variant(outputs, x.dtype, y.dtype, args=(*shapes, inter))


def kron_grad_meta(attrs, ins, facts):
    """kron_grad: X@GRAD = the sum of Out@GRAD * Y over Y's dims, Y@GRAD of Out@GRAD * X over X's (``args``:
    Out@GRAD's interleaved shape, the operands' spread shapes, the summed axes and the ranked shapes)."""
    x, y, d = ins["X"], ins["Y"], ins["Out@GRAD"]
    xs, ys = _kron_ranked(x.shape, y.shape)
    rank = len(xs)
    inter = tuple(n for a, b in zip(xs, ys) for n in (a, b))
    spread = (tuple(n for a in xs for n in (a, 1)), tuple(n for b in ys for n in (1, b)))
    axes = (tuple(2 * i + 1 for i in range(rank)), tuple(2 * i for i in range(rank)))
    outputs = {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype)), "Y@GRAD": (tuple(y.shape), np.dtype(y.dtype))}
    return _variant(outputs, x.dtype, y.dtype, d.dtype, args=(inter, spread, axes, (xs, ys)))


def trace_meta(attrs, ins, facts):
    """trace: the sums of the diagonal of Input's planes (``diagonal``) into Out of the other dims (none left:
    [1], 0-D in a Paddle 2.x program, ``facts.paddle2``); ``args``: the planes' dims, the diagonal's rows and
    columns, the sums' shape."""
    x = ins["Input"]
    dims, row, col, n = diagonal(x.shape, attrs)
    k = np.arange(n)
    rest = tuple(s for i, s in enumerate(x.shape) if i not in dims)
    shape = rest or (() if facts.paddle2 else (1,))
    return Meta({"Out": (shape, np.dtype(x.dtype))}, "out", args=(dims, k + row, k + col, rest))


def trace_grad_meta(attrs, ins, facts):
    """trace_grad: Input@GRAD (Input's shape, Out@GRAD's dtype): zeros, Out@GRAD on the diagonal."""
    x, d = ins["Input"], ins["Out@GRAD"]
    dims, row, col, n = diagonal(x.shape, attrs)
    k = np.arange(n)
    rest = tuple(s for i, s in enumerate(x.shape) if i not in dims)
    return Meta({"Input@GRAD": (tuple(x.shape), np.dtype(d.dtype))}, "out", args=(dims, k + row, k + col, rest))


def bilinear_meta(attrs, ins, facts):
    """bilinear_tensor_product: Out [B, K] = einsum of X, Weight, Y, plus Bias where given (``fresh``: einsum's
    sums follow the layout it gives its own result, kernels/cpu/matrix.py)."""
    x, w = ins["X"], ins["Weight"]
    return Meta({"Out": ((x.shape[0], w.shape[0]), np.dtype(x.dtype))}, "fresh", fresh=True)


def bilinear_grad_meta(attrs, ins, facts):
    """bilinear_tensor_product_grad: the gradients the op writes (``facts.wanted``), each in X's dtype (``fresh``)."""
    x, y, w, d = ins["X"], ins["Y"], ins["Weight"], ins["Out@GRAD"]
    shapes = {
        "X@GRAD": tuple(x.shape),
        "Y@GRAD": tuple(y.shape),
        "Weight@GRAD": tuple(w.shape),
        "Bias@GRAD": (1, d.shape[1]),
    }
    wanted = facts.wanted(tuple(shapes))
    outputs = {slot: (shape, np.dtype(x.dtype)) for slot, shape in shapes.items() if slot in wanted}
    return Meta(outputs, "fresh", fresh=True)
