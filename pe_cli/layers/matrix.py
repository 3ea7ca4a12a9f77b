"""Products of matrices and vectors, and the parts of a matrix, with Fluid 1.8's signatures (its
``fluid.layers`` names from paddle.tensor): addmm, bmm, dot, t, cross, kron, trace, tril, triu and
diag_embed. Each builds the op of its name that Fluid 1.8's layer builds (ops/matrix.py; t a transpose,
tril and triu a tril_triu); Paddle 2.x's names (pe_cli/paddle) use these."""

import numbers

import numpy as np

from ..base.errors import ArgumentTypeError, ArgumentValueError
from ..shapes.matrix import CROSS_DEFAULT_DIM
from .checks import NUMBERS, check_variable_and_dtype, fluid_checks, given
from .creation import assign
from .helper import LayerHelper, single
from .manipulation import transpose

__all__ = ["addmm", "bmm", "dot", "t", "cross", "kron", "trace", "tril", "triu", "diag_embed"]

_FLOATS = ("float32", "float64")
_KRON_TYPES = ("float16", "float32", "float64", "int32", "int64")


def _op(op_type, inputs, attrs, like, name=None, out=None):
    """Appends ``op_type`` writing Out (``out``, or a new variable of ``like``'s dtype, named ``name``)."""
    helper = LayerHelper(op_type, name=name)
    if out is None:
        out = helper.create_variable_for_type_inference(like.dtype)
    helper.append_op(op_type, inputs, {"Out": [out]}, attrs)
    return out


def addmm(input, x, y, alpha=1.0, beta=1.0, name=None):
    """alpha * (x @ y) + beta * input, x and y 2-D, input [1 or M, 1 or N] broadcast to the product's shape."""
    for what, v in (("input", input), ("x", x), ("y", y)):
        check_variable_and_dtype(v, what, _FLOATS, "addmm")
    return _op("addmm", {"Input": [input], "X": [x], "Y": [y]}, {"Alpha": float(alpha), "Beta": float(beta)}, x, name)


def bmm(x, y, name=None):
    """Batched [B, M, K] @ [B, K, N] -> [B, M, N]."""
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, _FLOATS, "bmm")
    return _op("bmm", {"X": [x], "Y": [y]}, {}, x, name)


@fluid_checks("dot", x=given(), y=given())
def dot(x, y, name=None):
    """The inner product along the last dim: [N] -> [1], [B, N] -> [B, 1]."""
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, NUMBERS, "dot")
    return _op("dot", {"X": [x], "Y": [y]}, {}, x, name)


@fluid_checks("transpose", input=("float16", "float32", "float64", "int32", "int64"))
def t(input, name=None):
    """The transpose of a matrix; a 1-D (or 0-D) tensor is returned as it is."""
    if len(input.shape) > 2:
        raise ArgumentValueError(f"t: input {list(input.shape)} must have at most 2 dims (use transpose)")
    return input if len(input.shape) < 2 else transpose(input, [1, 0], name=name)


def cross(input, other, dim=None):
    """The cross product of ``input`` and ``other`` along ``dim``. As Fluid 1.8's layer, a ``dim`` that is
    None or 0 is not passed, so the op takes the first dim of size 3."""
    return cross_along(input, other, dim if dim else CROSS_DEFAULT_DIM)


def cross_along(x, y, dim, name=None):
    """The cross op along ``dim`` (9, CROSS_DEFAULT_DIM: the first dim of size 3)."""
    return _op("cross", {"X": [x], "Y": [y]}, {"dim": int(dim)}, x, name)


def kron(x, y, out=None, name=None):
    """The Kronecker product of two tensors (the one of lower rank gains leading dims of size 1)."""
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, _KRON_TYPES, "kron")
    if out is not None:
        check_variable_and_dtype(out, "out", _KRON_TYPES, "kron")
    return _op("kron", {"X": [x], "Y": [y]}, {}, x, name, out)


def diagonal_coords(rows, cols, offset):
    """The int64 [k, 2] coordinates of diagonal ``offset`` of a rows x cols matrix."""
    pairs = [(i, i + offset) for i in range(rows) if 0 <= i + offset < cols]
    return assign(np.asarray(pairs, dtype=np.int64).reshape(-1, 2))


def trace(input, offset=0, dim1=0, dim2=1, out=None, name=None):
    """The sums of diagonal ``offset`` of the 2-D planes (dim1, dim2) of ``input``, Fluid 1.8's trace op
    (which takes the smaller of the two dims first, whatever their order)."""
    check_variable_and_dtype(input, "input", ("int32", "int64", "float16", "float32", "float64"), "trace")
    shape = list(input.shape)
    if len(shape) < 2:
        raise AssertionError(f"trace: the input must be at least 2-dimensional, got {shape}")
    if not (dim1 < len(shape) and dim2 < len(shape)):
        raise AssertionError(f"trace: dim1={dim1} and dim2={dim2} must be in [{-len(shape)}, {len(shape) - 1}]")
    if dim1 % len(shape) == dim2 % len(shape):
        raise AssertionError(f"trace: dim1 and dim2 cannot be the same dimension, got dim1={dim1}, dim2={dim2}")
    if out is not None:
        check_variable_and_dtype(out, "out", ("float16", "float32", "float64", "int32", "int64"), "trace")
    return _op(
        "trace", {"Input": [input]}, {"offset": int(offset), "dim1": int(dim1), "dim2": int(dim2)}, input, name, out
    )


def _triangle(op, input, diagonal, lower, name):
    check_variable_and_dtype(input, "input", NUMBERS + ("bool",), op)
    if len(input.shape) < 2:  # checked before diagonal, as Paddle's
        raise ArgumentValueError(f"{op}: input shape in {op} must be at least 2-D, got {list(input.shape)}")
    if not isinstance(diagonal, numbers.Integral) or isinstance(diagonal, bool):
        raise ArgumentTypeError(f"{op}: diagonal in {op} must be a python Int, got {diagonal!r}")
    return single("tril_triu", input, {"X": [input]}, {"diagonal": int(diagonal), "lower": lower}, name=name)


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
    helper.append_op(
        "diag_embed", {"Input": [input]}, {"Out": [out]}, {"offset": int(offset), "dim1": int(dim1), "dim2": int(dim2)}
    )
    out.stop_gradient = True
    return out
