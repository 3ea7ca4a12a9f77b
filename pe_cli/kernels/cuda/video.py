"""CUDA kernels of ops/video.py: the CPU kernels on the host (a device twin is not written yet)."""

from ._host import host_ops

HOST_OPS = host_ops("temporal_shift", "temporal_shift_grad")
