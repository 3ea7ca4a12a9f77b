"""``paddle.complex.tensor.math``: elementwise add, sub, mul and div, trace, sum and kron of complex
tensors (x = a + bi, y = c + di; a real operand has no imaginary part). Built with explicit layers, not
Variable operators, so a Paddle 2.x program gets the same ops as a Fluid one."""

from ..helper import complex_variable_exists, is_complex, is_real
from ....fluid import layers
from ....fluid.framework import ComplexVariable
from ....framework.program_release import paddle_face

__all__ = ["elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div", "kron", "trace", "sum"]


def _parts(x):
    return (x.real, x.imag) if is_complex(x) else (x, None)


def _add_or_sub(layer, x, y, axis, name):
    (a, b), (c, d) = _parts(x), _parts(y)
    real = layer(a, c, axis=axis, name=name)
    if is_real(b) and is_real(d):
        imag = layer(b, d, axis=axis, name=name)
    elif is_real(b):
        imag = layers.assign(b)
    else:
        imag = layer(layers.zeros_like(a), d, axis=axis, name=name)
    return ComplexVariable(real, imag)


def elementwise_add(x, y, axis=-1, name=None):
    complex_variable_exists([x, y], "elementwise_add")
    return _add_or_sub(layers.elementwise_add, x, y, axis, name)


def elementwise_sub(x, y, axis=-1, name=None):
    complex_variable_exists([x, y], "elementwise_sub")
    return _add_or_sub(layers.elementwise_sub, x, y, axis, name)


def elementwise_mul(x, y, axis=-1, name=None):
    """(a + bi)(c + di) = (ac - bd) + (bc + ad)i."""
    complex_variable_exists([x, y], "elementwise_mul")
    (a, b), (c, d) = _parts(x), _parts(y)

    def mul(p, q):
        return layers.elementwise_mul(p, q, axis=axis, name=name)

    ac = mul(a, c)
    bd = mul(b, d) if is_real(b) and is_real(d) else None
    bc = mul(b, c) if is_real(b) else None
    ad = mul(a, d) if is_real(d) else None
    real = layers.elementwise_sub(ac, bd) if is_real(bd) else ac
    imag = layers.elementwise_add(bc, ad) if is_real(bc) and is_real(ad) else bc if is_real(bc) else ad
    return ComplexVariable(real, imag)


def elementwise_div(x, y, axis=-1, name=None):
    """x * conj(y) / |y|^2."""
    complex_variable_exists([x, y], "elementwise_div")
    c, d = _parts(y)
    y_conj = ComplexVariable(c, layers.scale(d, -1.0)) if is_real(d) else c
    norm = layers.elementwise_add(layers.pow(c, 2.0), layers.pow(d, 2.0)) if is_real(d) else layers.pow(c, 2.0)
    e = layers.elementwise_div(layers.fill_constant([1], norm.dtype, 1.0), norm)
    return elementwise_mul(elementwise_mul(x, y_conj, axis=axis, name=name), e, axis=axis, name=name)


def trace(input, offset=0, dim1=0, dim2=1, name=None):  # noqa: A002 -- Paddle's argument name
    complex_variable_exists([input], "trace")
    return ComplexVariable(
        layers.trace(input.real, offset, dim1, dim2, name), layers.trace(input.imag, offset, dim1, dim2, name)
    )


@paddle_face
def sum(input, dim=None, keep_dim=False, name=None):  # noqa: A001,A002 -- Paddle's names
    complex_variable_exists([input], "sum")
    return ComplexVariable(
        layers.reduce_sum(input.real, dim=dim, keep_dim=keep_dim, name=name),
        layers.reduce_sum(input.imag, dim=dim, keep_dim=keep_dim, name=name),
    )


def kron(x, y, name=None):
    """kron(a + bi, c + di) = kron(a, c) - kron(b, d) + (kron(a, d) + kron(b, c))i."""
    complex_variable_exists([x, y], "kron")
    (a, b), (c, d) = _parts(x), _parts(y)
    if is_real(b) and is_real(d):
        return ComplexVariable(
            layers.elementwise_sub(layers.kron(a, c), layers.kron(b, d)),
            layers.elementwise_add(layers.kron(a, d), layers.kron(b, c)),
        )
    return ComplexVariable(layers.kron(a, c), layers.kron(b, c) if is_real(b) else layers.kron(a, d))
