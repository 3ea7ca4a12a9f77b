"""CUDA kernels of ops/quantization.py: the CPU kernels run on the host (a scale is one reduction over X
and a few scalars; these ops run in quantization-aware training, not on a hot inference path)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "fake_quantize_abs_max",
    "fake_quantize_range_abs_max",
    "fake_quantize_moving_average_abs_max",
    "fake_dequantize_max_abs",
    "fake_quantize_grad",
    "fake_channel_wise_quantize_abs_max",
    "fake_channel_wise_dequantize_max_abs",
    "fake_quantize_dequantize_moving_average_abs_max",
    "moving_average_abs_max_scale",
    "dequantize_abs_max",
    "dequantize_log",
    "quantize",
    "dequantize",
    "requantize",
)
