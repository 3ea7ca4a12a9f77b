"""``paddle.complex.tensor.manipulation``: ``reshape`` and ``transpose`` of both parts of a complex tensor."""

from ..helper import complex_variable_exists
from ....fluid import layers
from ....fluid.framework import ComplexVariable

__all__ = ["reshape", "transpose"]


def reshape(x, shape, inplace=False, name=None):
    complex_variable_exists([x], "reshape")
    real = layers.reshape(x.real, shape, inplace=inplace, name=name)
    imag = layers.reshape(x.imag, shape, inplace=inplace, name=name)
    if inplace:
        x.real, x.imag = real, imag
        return x
    return ComplexVariable(real, imag)


def transpose(x, perm, name=None):
    complex_variable_exists([x], "transpose")
    return ComplexVariable(layers.transpose(x.real, perm, name), layers.transpose(x.imag, perm, name))
