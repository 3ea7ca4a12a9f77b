"""``paddle.fluid.backward``: reverse-mode autodiff on the Program.

``calc_gradient`` is Fluid's older name for ``gradients``; both append grad ops to the targets'
program and return the gradient variables of ``inputs`` (None where an input gets none).
"""
from ..training.backward import append_backward, gradients
from ..ops.registry import grad_var_name

__all__ = ["append_backward", "gradients", "calc_gradient"]



def calc_gradient(targets, inputs, target_gradients=None, no_grad_set=None):
    """As ``gradients``, but one input's gradient comes back alone, not in a list (as Fluid's)."""
    grads = gradients(targets, inputs, target_gradients, no_grad_set)
    return grads[0] if len(grads) == 1 else grads


def _append_grad_suffix_(name):
    """Fluid's helper: the name of ``name``'s gradient (``name@GRAD``)."""
    return grad_var_name(name)


def _as_list(x):
    """Fluid's helper: None as [], a list or tuple as a list, anything else as [x]."""
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]
