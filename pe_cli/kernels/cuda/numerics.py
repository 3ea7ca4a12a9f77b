"""check_numerics on a GPU place: its CPU twin on the host (kernels/cuda/_host.py)."""

from ..cpu import numerics as _cpu
from ._host import on_host

check_numerics = on_host(_cpu.check_numerics)
