"""CUDA kernels of pe_cli/ops/quantization_linear.py: their CPU twins on the host (kernels/cuda/_host.py;
correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("quantize_linear", "dequantize_linear")
