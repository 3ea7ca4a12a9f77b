"""CUDA kernels of ops/logic.py: comparisons and logic compute on the host (their results feed
conditions read there), and so do the bitwise ops, beside them (masks, rarely large), and allclose (one
bool, read there)."""

from ..cpu import logic as _cpu
from .control_flow import _on_host


less_than = _on_host(_cpu.less_than)
less_equal = _on_host(_cpu.less_equal)
greater_than = _on_host(_cpu.greater_than)
greater_equal = _on_host(_cpu.greater_equal)
equal = _on_host(_cpu.equal)
not_equal = _on_host(_cpu.not_equal)
logical_not = _on_host(_cpu.logical_not)
logical_and = _on_host(_cpu.logical_and)
logical_or = _on_host(_cpu.logical_or)
logical_xor = _on_host(_cpu.logical_xor)
bitwise_not = _on_host(_cpu.bitwise_not)
bitwise_and = _on_host(_cpu.bitwise_and)
bitwise_or = _on_host(_cpu.bitwise_or)
bitwise_xor = _on_host(_cpu.bitwise_xor)
equal_reduce = _on_host(_cpu.equal_reduce)
allclose = _on_host(_cpu.allclose)
isclose = _on_host(_cpu.isclose)
isfinite_v2 = _on_host(_cpu.isfinite_v2)
isinf_v2 = _on_host(_cpu.isinf_v2)
isnan_v2 = _on_host(_cpu.isnan_v2)
equal_all = _on_host(_cpu.equal_all)
