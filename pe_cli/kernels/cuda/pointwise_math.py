"""CUDA kernels of the pointwise_math family: their CPU twins on the host (kernels/cuda/_host.py; numpy's
formulas, exactly the CPU's values; correct on a GPU place, not fast)."""

from ..cpu import pointwise_math as _cpu
from ._host import on_host

for _name in list(_cpu.UNARY) + ["atan2", "elementwise_fmax", "elementwise_fmin", "elementwise_heaviside", "lerp"]:
    globals()[_name] = on_host(getattr(_cpu, _name))
    globals()[f"{_name}_grad"] = on_host(getattr(_cpu, f"{_name}_grad"))
