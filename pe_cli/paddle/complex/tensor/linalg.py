"""``paddle.complex.tensor.linalg``: ``matmul`` of complex tensors: (a + bi)(c + di) = ac - bd + (ad + bc)i."""

from ..helper import complex_variable_exists, is_complex, is_real
from ....fluid import layers
from ....fluid.framework import ComplexVariable

__all__ = ["matmul"]


def matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    complex_variable_exists([x, y], "matmul")
    a, b = (x.real, x.imag) if is_complex(x) else (x, None)
    c, d = (y.real, y.imag) if is_complex(y) else (y, None)

    def mm(p, q):
        return layers.matmul(p, q, transpose_x, transpose_y, alpha, name)

    if is_real(b) and is_real(d):
        return ComplexVariable(  # explicit layers, not Variable operators: the same ops in either release's program
            layers.elementwise_sub(mm(a, c), mm(b, d)), layers.elementwise_add(mm(a, d), mm(b, c))
        )
    return ComplexVariable(mm(a, c), mm(b, c) if is_real(b) else mm(a, d))
