"""CUDA kernels of ops/tensor_file.py: the files read and written on the host, the tensors copied
between host and device."""

from ..cpu import tensor_file as _cpu
from ._host import on_host

load = on_host(_cpu.load)
load_combine = on_host(_cpu.load_combine)
save = on_host(_cpu.save)
save_combine = on_host(_cpu.save_combine)
