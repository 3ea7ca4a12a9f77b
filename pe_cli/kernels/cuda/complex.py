"""CUDA kernels of the complex family: their CPU twins on the host (kernels/cuda/_host.py; numba's device
arrays hold complex64 / complex128, and these ops only split and join parts)."""

from ..cpu import complex as _cpu
from ._host import on_host

complex, complex_grad = on_host(_cpu.complex), on_host(_cpu.complex_grad)  # noqa: A001 -- the op's name
real, real_grad, imag, imag_grad = (
    on_host(_cpu.real),
    on_host(_cpu.real_grad),
    on_host(_cpu.imag),
    on_host(_cpu.imag_grad),
)
angle, angle_grad = on_host(_cpu.angle), on_host(_cpu.angle_grad)
as_complex, as_real = on_host(_cpu.as_complex), on_host(_cpu.as_real)
