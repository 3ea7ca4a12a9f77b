"""Fluid 1.8's ``layers.tensor``: creating, converting and combining tensors (fill_constant, zeros,
ones, assign, range, eye, diag, cast, concat, sums, ...; Fluid 1.8's arange, full, full_like, linspace,
kron, trace, tril, triu), which pe defines in its creation, matrix, manipulation, elementwise, indexing,
metric and control_flow modules."""

from .control_flow import tensor_array_to_tensor
from .creation import (
    arange,
    assign,
    create_global_var,
    create_parameter,
    create_tensor,
    diag,
    eye,
    fill_constant,
    fill_constant_batch_size_like,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    range,
    zeros,
    zeros_like,
)
from .elementwise import has_inf, has_nan, isfinite, sums
from .indexing import argmax, argmin, argsort
from .manipulation import cast, concat, reverse
from .matrix import kron, trace, tril, triu

__all__ = [
    "arange",
    "argmax",
    "argmin",
    "argsort",
    "assign",
    "cast",
    "concat",
    "create_global_var",
    "create_parameter",
    "create_tensor",
    "diag",
    "eye",
    "fill_constant",
    "fill_constant_batch_size_like",
    "full",
    "full_like",
    "has_inf",
    "has_nan",
    "isfinite",
    "kron",
    "linspace",
    "ones",
    "ones_like",
    "range",
    "reverse",
    "sums",
    "tensor_array_to_tensor",
    "trace",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]
