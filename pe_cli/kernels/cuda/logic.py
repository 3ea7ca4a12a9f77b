"""CUDA kernels of ops/logic.py: comparisons and logic compute on the host (their results feed
conditions read there), and so do the bitwise ops, beside them (masks, rarely large), and allclose (one
bool, read there)."""

from ._host import host_ops


HOST_OPS = host_ops(
    "less_than",
    "less_equal",
    "greater_than",
    "greater_equal",
    "equal",
    "not_equal",
    "logical_not",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "equal_reduce",
    "allclose",
    "isclose",
    "isfinite_v2",
    "isinf_v2",
    "isnan_v2",
    "equal_all",
)
