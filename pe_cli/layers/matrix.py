"""Products of matrices and vectors, and the parts of a matrix, with Fluid 1.8's signatures (its
``fluid.layers`` names from paddle.tensor): addmm, bmm, dot, t, cross, kron, trace, tril, triu and
diag_embed. Each is one op or a few composed exactly; Paddle 2.x's names (pe_cli/paddle) use these."""
import builtins
import numbers

import numpy as np

from ..base.errors import ArgumentTypeError, ArgumentValueError
from .checks import NUMBERS, check_variable_and_dtype
from .creation import assign
from .elementwise import elementwise_add, elementwise_mul, elementwise_sub, scale
from .helper import LayerHelper, _single
from .indexing import gather_nd
from .linalg import matmul
from .manipulation import concat, reshape, slice, transpose
from .reduction import reduce_sum

__all__ = ["addmm", "bmm", "dot", "t", "cross", "kron", "trace", "tril", "triu", "diag_embed"]

_FLOATS = ("float32", "float64")


def addmm(input, x, y, alpha=1.0, beta=1.0, name=None):
    """alpha * (x @ y) + beta * input, x and y 2-D, input broadcast to the product's shape."""
    for what, v in (("input", input), ("x", x), ("y", y)):
        check_variable_and_dtype(v, what, _FLOATS, "addmm")
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise ArgumentValueError(f"addmm: x {list(x.shape)} and y {list(y.shape)} must be 2-D matrices")
    product = scale(matmul(x, y), scale=float(alpha))
    return elementwise_add(scale(input, scale=float(beta)), product, name=name)


def bmm(x, y, name=None):
    """Batched [B, M, K] @ [B, K, N] -> [B, M, N]."""
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, _FLOATS, "bmm")
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) != 3 or len(ys) != 3:
        raise ArgumentValueError(f"bmm: x {xs} and y {ys} must both be 3-D")
    if xs[2] >= 0 and ys[1] >= 0 and xs[2] != ys[1]:
        raise ArgumentValueError(f"bmm: x {xs} and y {ys}: x's width must equal y's height")
    if xs[0] >= 0 and ys[0] >= 0 and xs[0] != ys[0]:
        raise ArgumentValueError(f"bmm: x {xs} and y {ys} must have the same batch size")
    return matmul(x, y, name=name)


def dot(x, y, name=None):
    """The inner product along the last dim: [N] -> [1], [B, N] -> [B, 1]."""
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, NUMBERS, "dot")
    return reduce_sum(elementwise_mul(x, y), dim=-1, keep_dim=len(x.shape) == 2, name=name)


def t(input, name=None):
    """The transpose of a matrix; a 1-D (or 0-D) tensor is returned as it is."""
    if len(input.shape) > 2:
        raise ArgumentValueError(f"t: input {list(input.shape)} must have at most 2 dims (use transpose)")
    return input if len(input.shape) < 2 else transpose(input, [1, 0], name=name)


def cross(input, other, dim=None):
    """The cross product of ``input`` and ``other`` along ``dim`` (None: the first dim of size 3)."""
    shape = list(input.shape)
    if dim is None:
        dim = next((i for i, d in enumerate(shape) if d == 3), None)
    if dim is None or not -len(shape) <= dim < len(shape) or shape[dim] != 3:
        raise ArgumentValueError(f"cross: input {shape} needs a dim of size 3 at dim={dim}")
    dim %= len(shape)
    xs = [slice(input, [dim], [i], [i + 1]) for i in range(3)]
    ys = [slice(other, [dim], [i], [i + 1]) for i in range(3)]
    parts = [elementwise_sub(elementwise_mul(xs[(i + 1) % 3], ys[(i + 2) % 3]),
                             elementwise_mul(xs[(i + 2) % 3], ys[(i + 1) % 3])) for i in range(3)]
    return concat(parts, axis=dim)


def kron(x, y, out=None, name=None):
    """The Kronecker product of two tensors of known shapes (the one of lower rank gains leading
    dims of size 1)."""
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, NUMBERS, "kron")
    xs, ys = list(x.shape), list(y.shape)
    if builtins.min(xs + ys + [0]) < 0:
        raise ArgumentValueError(f"kron: pe needs the sizes of x {xs} and y {ys} known when the program is built")
    rank = builtins.max(len(xs), len(ys))
    xs, ys = [1] * (rank - len(xs)) + xs, [1] * (rank - len(ys)) + ys
    xe = reshape(x, [d for a in xs for d in (a, 1)])
    ye = reshape(y, [d for b in ys for d in (1, b)])
    result = reshape(elementwise_mul(xe, ye), [a * b for a, b in zip(xs, ys)] if rank else [1], name=name)
    return result if out is None else assign(result, out)


def diagonal_coords(rows, cols, offset):
    """The int64 [k, 2] coordinates of diagonal ``offset`` of a rows x cols matrix."""
    pairs = [(i, i + offset) for i in range(rows) if 0 <= i + offset < cols]
    return assign(np.asarray(pairs, dtype=np.int64).reshape(-1, 2))


def trace(input, offset=0, dim1=0, dim2=1, out=None, name=None):
    """The sum of diagonal ``offset`` of the 2-D planes (dim1, dim2) of ``input`` (sizes known)."""
    check_variable_and_dtype(input, "input", NUMBERS, "trace")
    shape = list(input.shape)
    if len(shape) < 2:
        raise AssertionError(f"trace: the input must be at least 2-dimensional, got {shape}")
    if not (-len(shape) <= dim1 < len(shape) and -len(shape) <= dim2 < len(shape)):
        raise AssertionError(f"trace: dim1={dim1} and dim2={dim2} must be in [{-len(shape)}, {len(shape) - 1}]")
    a1, a2 = dim1 % len(shape), dim2 % len(shape)
    if a1 == a2:
        raise AssertionError(f"trace: dim1 and dim2 cannot be the same dimension, got dim1={dim1}, dim2={dim2}")
    if shape[a1] < 0 or shape[a2] < 0:
        raise ArgumentValueError(f"trace: pe needs dims {a1} and {a2} of {shape} known when the program is built")
    perm = [a1, a2] + [d for d in range(len(shape)) if d not in (a1, a2)]
    moved = input if perm == list(range(len(perm))) else transpose(input, perm)
    diagonal = gather_nd(moved, diagonal_coords(shape[a1], shape[a2], int(offset)))
    result = reduce_sum(diagonal, dim=0, keep_dim=False, name=name)
    return result if out is None else assign(result, out)


def _triangle(op, input, diagonal, lower, name):
    check_variable_and_dtype(input, "input", NUMBERS + ("bool",), op)
    if len(input.shape) < 2:        # checked before diagonal, as Paddle's
        raise ArgumentValueError(f"{op}: input shape in {op} must be at least 2-D, got {list(input.shape)}")
    if not isinstance(diagonal, numbers.Integral) or isinstance(diagonal, bool):
        raise ArgumentTypeError(f"{op}: diagonal in {op} must be a python Int, got {diagonal!r}")
    return _single("tril_triu", input, {"X": [input]}, {"diagonal": int(diagonal), "lower": lower}, name=name)


def tril(input, diagonal=0, name=None):
    """``input``'s lower triangle (col - row <= diagonal) in its last two dims, zeros elsewhere."""
    return _triangle("tril", input, diagonal, True, name)


def triu(input, diagonal=0, name=None):
    """``input``'s upper triangle (col - row >= diagonal) in its last two dims, zeros elsewhere."""
    return _triangle("triu", input, diagonal, False, name)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Each last-dim vector of ``input`` [..., N] on diagonal ``offset`` of the 2-D planes (dim1, dim2)
    of the result (rank + 1 dims, those two of size N + |offset|), zeros elsewhere. No gradient."""
    check_variable_and_dtype(input, "input", ("float32", "float64", "int32", "int64"), "diag_embed")
    rank = len(input.shape) + 1
    for what, v in (("dim1", dim1), ("dim2", dim2)):
        if not -rank <= v < rank:
            raise ArgumentValueError(f"diag_embed: {what}={v} must be in [{-rank}, {rank - 1}]")
    if dim1 % rank == dim2 % rank:
        raise ArgumentValueError(f"diag_embed: dim1={dim1} and dim2={dim2} must name different dims")
    helper = LayerHelper("diag_embed", input=input)
    out = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op("diag_embed", {"Input": [input]}, {"Out": [out]},
                     {"offset": int(offset), "dim1": int(dim1), "dim2": int(dim2)})
    out.stop_gradient = True
    return out
