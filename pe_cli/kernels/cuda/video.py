"""CUDA kernels of ops/video.py: the CPU kernels on the host (a device twin is not written yet)."""

from ..cpu import video as _cpu
from ._host import on_host

temporal_shift = on_host(_cpu.temporal_shift)
temporal_shift_grad = on_host(_cpu.temporal_shift_grad)
