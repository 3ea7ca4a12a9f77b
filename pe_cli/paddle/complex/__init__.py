"""``paddle.complex`` (Paddle 1.8): arithmetic on complex tensors held as ComplexVariable (a real and
an imaginary Variable; fluid.framework): elementwise_add/sub/mul/div, kron, trace, sum, matmul,
reshape, transpose, each built from the real layers on the two parts (tensor/). A real Variable may
stand in for one operand; at least one operand must be complex."""
from . import tensor  # noqa: F401
from .tensor import *  # noqa: F401,F403

__all__ = tensor.__all__ + []
