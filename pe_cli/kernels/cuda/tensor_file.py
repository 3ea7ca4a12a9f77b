"""CUDA kernel of ops/tensor_file.py: the file read on the host, the tensor copied to the device."""
from ..cpu import tensor_file as _cpu
from ._host import on_host

load = on_host(_cpu.load)
