"""``paddle.autograd`` in static mode: ``backward_mode.gradients_with_optimizer`` (the gradients of a
program's outputs applied by an optimizer), the grad-mode switches (no_grad, enable_grad,
set_grad_enabled, is_grad_enabled: they change nothing in a static graph, as in Paddle). The
dygraph names (``backward``, ``grad``, ``PyLayer``, ``jacobian``, ``hessian``, ...) are one-line
refusals."""

from ...base.errors import unsupported
from ..device import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from . import backward_mode, ir_backward  # noqa: F401

__all__ = ["jacobian", "hessian", "backward", "PyLayer", "PyLayerContext", "saved_tensors_hooks"]

_DYGRAPH = "a dygraph API (pe runs static graphs only: use paddle.static.gradients)"
backward = backward_mode.backward
grad = unsupported("paddle.autograd.grad", _DYGRAPH)
jacobian = unsupported("paddle.autograd.jacobian", _DYGRAPH)
hessian = unsupported("paddle.autograd.hessian", _DYGRAPH)
PyLayer = unsupported("paddle.autograd.PyLayer", _DYGRAPH)
PyLayerContext = unsupported("paddle.autograd.PyLayerContext", _DYGRAPH)
saved_tensors_hooks = unsupported("paddle.autograd.saved_tensors_hooks", _DYGRAPH)
