"""CUDA kernels of the complex family: their CPU twins on the host (kernels/cuda/_host.py; numba's device
arrays hold complex64 / complex128, and these ops only split and join parts)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "complex", "complex_grad", "real", "real_grad", "imag", "imag_grad", "angle", "angle_grad", "as_complex", "as_real"
)
