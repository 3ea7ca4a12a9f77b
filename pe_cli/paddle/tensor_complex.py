"""Paddle 2.x's complex tensor functions (``paddle.complex``, ``as_complex``, ``as_real``, ``real``,
``imag``, ``angle``, ``polar``, ``conj``) with 2.6.2's signatures: the ops of the complex family (ops/complex.py),
``polar`` composed as Paddle composes it. pe carries complex64 / complex128 values through static
programs, feeds and fetches, and their gradients (of a real loss) back to real inputs."""

from .. import layers as L
from ..base.dtypes import COMPLEX_OF, REAL_OF
from ..layers.checks import check_variable_and_dtype
from ..layers.creation import assign_array_like
from ..layers.helper import LayerHelper
from . import tensor_math as TM

__all__ = ["complex", "as_complex", "as_real", "real", "imag", "angle", "polar", "conj"]


def _op(op_type, inputs, dtype, name):
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(op_type, inputs, {"Out": [out]})
    return out


def complex(real, imag, name=None):  # noqa: A001 -- Paddle's name
    """real + i imag (broadcast): complex64 of float32 parts, complex128 of float64 ones."""
    check_variable_and_dtype(real, "real", ("float32", "float64"), "complex")
    check_variable_and_dtype(imag, "imag", ("float32", "float64"), "complex")
    return _op("complex", {"X": [real], "Y": [imag]}, COMPLEX_OF[real.dtype], name)


def as_complex(x, name=None):
    """x's last dim (of 2) read as the real and imaginary parts."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "as_complex")
    return _op("as_complex", {"X": [x]}, COMPLEX_OF[x.dtype], name)


def as_real(x, name=None):
    """x's parts as a last dim of 2."""
    check_variable_and_dtype(x, "x", ("complex64", "complex128"), "as_real")
    return _op("as_real", {"X": [x]}, REAL_OF[x.dtype], name)


def real(x, name=None):
    """The real part of a complex x."""
    check_variable_and_dtype(x, "x", ("complex64", "complex128"), "real")
    return _op("real", {"X": [x]}, REAL_OF[x.dtype], name)


def imag(x, name=None):
    """The imaginary part of a complex x."""
    check_variable_and_dtype(x, "x", ("complex64", "complex128"), "imag")
    return _op("imag", {"X": [x]}, REAL_OF[x.dtype], name)


def angle(x, name=None):
    """The argument of each value, in (-pi, pi]: of a real x, 0 or pi."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64", "complex64", "complex128"), "angle")
    return _op("angle", {"X": [x]}, REAL_OF.get(x.dtype, x.dtype), name)


def polar(abs, angle, name=None):  # noqa: A002 -- Paddle's names
    """abs (cos(angle) + i sin(angle)), as Paddle composes it."""
    check_variable_and_dtype(abs, "abs", ("float32", "float64"), "paddle.polar")
    check_variable_and_dtype(angle, "angle", ("float32", "float64"), "paddle.polar")
    return complex(TM.multiply(abs, L.cos(angle)), TM.multiply(abs, L.sin(angle)), name=name)


def conj(x, name=None):
    """The complex conjugate (re - i im; x itself of a real x): Paddle 2.6's conj op."""
    dtypes = ("complex64", "complex128", "float16", "float32", "float64", "int32", "int64")
    check_variable_and_dtype(x, "x", dtypes, "conj")
    return _op("conj", {"X": [x]}, x.dtype, name)
