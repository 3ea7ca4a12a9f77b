"""CUDA kernels of ops/quantization.py: the CPU kernels run on the host (a scale is one reduction over X
and a few scalars; these ops run in quantization-aware training, not on a hot inference path)."""
from ..cpu import quantization as _cpu
from ._host import on_host

fake_quantize_abs_max = on_host(_cpu.fake_quantize_abs_max)
fake_quantize_range_abs_max = on_host(_cpu.fake_quantize_range_abs_max)
fake_quantize_moving_average_abs_max = on_host(_cpu.fake_quantize_moving_average_abs_max)
fake_dequantize_max_abs = on_host(_cpu.fake_dequantize_max_abs)
fake_quantize_grad = on_host(_cpu.fake_quantize_grad)
