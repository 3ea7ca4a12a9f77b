"""``paddle.complex.helper``: which operands are complex (``is_complex``) or real (``is_real``), and
the check that a complex layer got at least one complex operand."""

from ...fluid import framework  # noqa: F401 -- Paddle's module has it


def is_complex(x):
    return isinstance(x, framework.ComplexVariable)


def is_real(x):
    return isinstance(x, framework.Variable)


def complex_variable_exists(inputs, layer_name):
    """A ValueError unless one of ``inputs`` is a ComplexVariable."""
    if any(is_complex(x) for x in inputs):
        return
    what = "At least one inputs of layer complex." if len(inputs) > 1 else "The input of layer complex."
    raise ValueError(what + layer_name + "() must be ComplexVariable, please use the layer for real numher instead.")
