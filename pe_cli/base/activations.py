"""The activation table: one row per elementwise activation, Out = f(X), from which the ops
(pe_cli/ops/activation.py), both devices' kernels (pe_cli/kernels/*/activation.py) and the layers
(pe_cli/layers/activation.py) are made. A leaf: it imports nothing of pe, and no numba. The rows are
written by family: activations_rectifiers.py (relu and its variants, the shrinks), activations_sigmoid.py
(the sigmoid and tanh family, gelu, softplus, mish) and activations_math.py (elementwise math
functions); the row itself (``Activation``, ``Param``) in activations_row.py.

A row says what the op is (name, doc, attributes, accepted dtypes), what its gradient reads
(``reads``: X or Out, with Out@GRAD) and how to compute it, twice where that keeps results exact:
- ``forward(x, *params)`` and ``derivative(a, dout, *params)`` on numpy arrays: the CPU kernels.
  These are the numpy expressions the kernels always ran, constants cast to the array's dtype
  (``_c``), so NaN, -0.0, overflow and float16 results stay bit for bit what numpy gives.
- ``scalar_forward`` / ``scalar_derivative``: the same on one scalar, for device code (the CUDA
  kernels compile them with numba.cuda). None where the array form is scalar code too.
``params`` are the row's attributes, passed in the input's dtype (Out@GRAD's for the gradient).
A few helpers are not the table's to supply: the array forms call ``_erf`` (numpy has none) and the
scalar forms call ``_sigmoid`` and ``_softplus``, which device code must compile; each device binds
its own in their place with ``bind``. softmax and log_softmax (along an axis) are not rows.
"""

from .activations_math import MATH_FUNCTIONS
from .activations_rectifiers import RECTIFIERS
from .activations_row import FLOATS, Activation, Param, bind, real_number
from .activations_sigmoid import SCALAR_HELPERS, SIGMOID_FAMILY

__all__ = ["FLOATS", "Activation", "Param", "ROWS", "SCALAR_HELPERS", "TABLE", "bind", "kernels", "real_number"]

TABLE = RECTIFIERS + SIGMOID_FAMILY + MATH_FUNCTIONS
ROWS = {row.name: row for row in TABLE}


def kernels(forward_kernel, grad_kernel):
    """{op type: kernel} of a device: ``forward_kernel(row)`` for every row, and ``grad_kernel(row)``
    as ``<name>_grad`` for the rows with a gradient."""
    made = {}
    for row in TABLE:
        made[row.name] = forward_kernel(row)
        if row.derivative is not None:
            made[f"{row.name}_grad"] = grad_kernel(row)
    for name, kernel in made.items():
        kernel.__name__ = kernel.__qualname__ = name
    return made
