"""Fluid 1.8's second-order gradient ops of five activations (relu_grad_grad, leaky_relu_grad_grad,
elu_grad_grad, sqrt_grad_grad, square_grad_grad), one op each as Fluid has them, beside the
activation table (pe_cli/base/activations.py) whose rows they extend. A leaf, as that table.

The gradient op X@GRAD = Out@GRAD * f'(u) (u: X or Out, the row's ``reads``) is linear in Out@GRAD.
Given DDX, the gradient reaching X@GRAD, its gradients are
- DDOut (of Out@GRAD) = DDX * f'(u): the row's own ``derivative(u, DDX)``;
- the gradient of u, where f' is not piecewise constant (relu and leaky_relu have none):
  elu and square: DX = DDX * DOut * f''(x), DOut being Out@GRAD;
  sqrt, which reads Out: DOut = -DX * DDX / Out, DX being X@GRAD = 0.5 * Out@GRAD / Out.
``given``: the input slot that gradient reads besides u and DDX ("DOut" or "DX", as Fluid names
them); ``slot``: its output slot. ``first(u, given, ddx, *params)`` on numpy arrays (the CPU kernels)
and ``scalar_first`` on scalars (device code), the row's attributes in ``params``.
"""

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SecondOrder:
    name: str  # the activation (a row of the table)
    given: str = ""  # "DOut" or "DX": what the gradient of u reads; "" where there is none
    slot: str = ""  # "DX" or "DOut": the gradient of u (X or Out); ""
    first: object = None
    scalar_first: object = None

    @property
    def device_first(self):
        return self.scalar_first or self.first


def _elu(x, dout, ddx, a):  # Fluid's: only where x < 0
    return np.where(x < 0, ddx * dout * a * np.exp(np.minimum(x, 0)), 0 * ddx)


def _elu_scalar(x, dout, ddx, a):
    return ddx * dout * a * math.exp(x) if x < 0 else 0 * ddx


SECOND_ORDER = (
    SecondOrder("relu"),
    SecondOrder("leaky_relu"),
    SecondOrder("elu", "DOut", "DX", _elu, _elu_scalar),
    SecondOrder("sqrt", "DX", "DOut", lambda out, dx, ddx: -dx * ddx / out),
    SecondOrder("square", "DOut", "DX", lambda x, dout, ddx: ddx * dout * 2),
)
ORDERS = {s.name: s for s in SECOND_ORDER}


def grad_grad_kernels(make):
    """{``<name>_grad_grad``: ``make(second)``} of a device, each named for its op type."""
    made = {}
    for second in SECOND_ORDER:
        kernel = made[f"{second.name}_grad_grad"] = make(second)
        kernel.__name__ = kernel.__qualname__ = f"{second.name}_grad_grad"
    return made
