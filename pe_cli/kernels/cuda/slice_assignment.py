"""CUDA kernels of set_value: their CPU twins on the host (kernels/cuda/_host.py; an index region of any
strides; correct on a GPU place, not fast)."""

from ..cpu import slice_assignment as _cpu
from ._host import on_host

set_value, set_value_grad = on_host(_cpu.set_value), on_host(_cpu.set_value_grad)
