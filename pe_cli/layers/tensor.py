"""Fluid 1.8's ``layers.tensor``: creating, converting and combining tensors (fill_constant, zeros,
ones, assign, range, eye, diag, cast, concat, sums, ...), which pe defines in its creation,
manipulation, elementwise, indexing, metric and control_flow modules. ``arange``, ``full``,
``full_like``, ``kron``, ``linspace``, ``trace``, ``tril`` and ``triu`` are not in pe's layers."""
from .fluid_module import resolver

__all__ = ["argmax", "argmin", "argsort", "assign", "cast", "concat", "create_global_var", "create_parameter",
           "create_tensor", "diag", "eye", "fill_constant", "fill_constant_batch_size_like", "has_inf", "has_nan",
           "isfinite", "ones", "ones_like", "range", "reverse", "sums", "tensor_array_to_tensor", "zeros",
           "zeros_like"]
__getattr__ = resolver(__name__, __all__)
