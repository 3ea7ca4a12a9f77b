"""Fluid 1.8's ``layers.ops``: the generated elementwise layers, as pe's activation table makes them."""

from .fluid_module import resolver

__all__ = [
    "exp",
    "tanh",
    "atan",
    "tanh_shrink",
    "softshrink",
    "sqrt",
    "rsqrt",
    "abs",
    "ceil",
    "floor",
    "cos",
    "acos",
    "asin",
    "sin",
    "sinh",
    "cosh",
    "round",
    "reciprocal",
    "square",
    "softplus",
    "softsign",
    "uniform_random",
    "hard_shrink",
    "cumsum",
    "thresholded_relu",
    "gelu",
    "erf",
    "sigmoid",
    "logsigmoid",
]
__getattr__ = resolver(__name__, __all__)
