"""CUDA kernels of ops/quantization.py: the CPU kernels run on the host (a scale is one reduction over X
and a few scalars; these ops run in quantization-aware training, not on a hot inference path)."""

from ..cpu import quantization as _cpu
from ._host import on_host

fake_quantize_abs_max = on_host(_cpu.fake_quantize_abs_max)
fake_quantize_range_abs_max = on_host(_cpu.fake_quantize_range_abs_max)
fake_quantize_moving_average_abs_max = on_host(_cpu.fake_quantize_moving_average_abs_max)
fake_dequantize_max_abs = on_host(_cpu.fake_dequantize_max_abs)
fake_quantize_grad = on_host(_cpu.fake_quantize_grad)
fake_channel_wise_quantize_abs_max = on_host(_cpu.fake_channel_wise_quantize_abs_max)
fake_channel_wise_dequantize_max_abs = on_host(_cpu.fake_channel_wise_dequantize_max_abs)
fake_quantize_dequantize_moving_average_abs_max = on_host(_cpu.fake_quantize_dequantize_moving_average_abs_max)
moving_average_abs_max_scale = on_host(_cpu.moving_average_abs_max_scale)
dequantize_abs_max = on_host(_cpu.dequantize_abs_max)
dequantize_log = on_host(_cpu.dequantize_log)
quantize = on_host(_cpu.quantize)
dequantize = on_host(_cpu.dequantize)
requantize = on_host(_cpu.requantize)
