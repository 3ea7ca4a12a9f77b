"""``paddle.complex`` (Paddle 1.8): arithmetic on complex tensors held as ComplexVariable (a real and
an imaginary Variable; fluid.framework): elementwise_add/sub/mul/div, kron, trace, sum, matmul,
reshape, transpose, each built from the real layers on the two parts (tensor/). A real Variable may
stand in for one operand; at least one operand must be complex.

Paddle 2.x's ``paddle.complex`` is a function, ``paddle.complex(real, imag)``, a complex64/complex128
tensor (ops/complex.py): this module is callable as that function, so both releases' scripts run."""

import sys
import types

from ..tensor_complex import complex as _complex_of_parts
from . import tensor  # noqa: F401
from .tensor import *  # noqa: F401,F403

__all__ = tensor.__all__ + []


class _CallableModule(types.ModuleType):
    """Paddle 1.8's paddle.complex module that, called, is Paddle 2.x's paddle.complex function."""

    def __call__(self, real, imag, name=None):
        """real + i imag (broadcast): complex64 of float32 parts, complex128 of float64 ones."""
        return _complex_of_parts(real, imag, name=name)


sys.modules[__name__].__class__ = _CallableModule
