"""``paddle.autograd.ir_backward``: Paddle's backward over its PIR programs, which pe does not have
(one-line refusals; pe's gradients are paddle.static.gradients)."""
from ...base.errors import unsupported

__all__ = ["grad", "calc_gradient"]

_PIR = "pe has no PIR programs (use paddle.static.gradients)"
grad = unsupported("paddle.autograd.ir_backward.grad", _PIR)
calc_gradient = unsupported("paddle.autograd.ir_backward.calc_gradient", _PIR)
