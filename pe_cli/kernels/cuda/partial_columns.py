"""CUDA twin of kernels/cpu/partial_columns.py: column windows are strided copies, done on the
host (kernels/cuda/_host.py); these ops sit once at a CTR model's input."""

from ..cpu import partial_columns as _cpu
from ._host import on_host

partial_concat = on_host(_cpu.partial_concat)
partial_sum = on_host(_cpu.partial_sum)
partial_concat_grad = on_host(_cpu.partial_concat_grad)
partial_sum_grad = on_host(_cpu.partial_sum_grad)
