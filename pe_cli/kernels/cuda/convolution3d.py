"""CUDA kernels of ops/convolution3d.py: the CPU's tap-by-tap kernels run on the host, the results
copied to the device (device kernels for 3-D convolution are not written yet)."""

from ..cpu import convolution3d as _cpu
from ._host import on_host

conv3d = on_host(_cpu.conv3d)
conv3d_grad = on_host(_cpu.conv3d_grad)
conv3d_transpose = on_host(_cpu.conv3d_transpose)
conv3d_transpose_grad = on_host(_cpu.conv3d_transpose_grad)
