"""CUDA kernels of pe_cli/ops/quantization_linear.py: their CPU twins on the host (kernels/cuda/_host.py;
correct on a GPU place, not fast)."""

from ..cpu import quantization_linear as _cpu
from ._host import on_host

quantize_linear, dequantize_linear = on_host(_cpu.quantize_linear), on_host(_cpu.dequantize_linear)
