"""CUDA kernels of ops/convolution3d.py: the CPU's tap-by-tap kernels run on the host, the results
copied to the device (device kernels for 3-D convolution are not written yet)."""

from ._host import host_ops

HOST_OPS = host_ops("conv3d", "conv3d_grad", "conv3d_transpose", "conv3d_transpose_grad")
