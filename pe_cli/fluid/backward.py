"""``paddle.fluid.backward``: reverse-mode autodiff on the Program.

``calc_gradient`` is Fluid's older name for ``gradients``; both append grad ops to the targets'
program and return the gradient variables of ``inputs`` (None where an input gets none).
"""
from ..training.backward import append_backward, gradients

__all__ = ["append_backward", "gradients", "calc_gradient"]

calc_gradient = gradients
