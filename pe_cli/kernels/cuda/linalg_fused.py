"""CUDA kernels of ops/linalg_fused.py: Fluid has CPU kernels only, and falls back to them on a GPU
place; so does pe (the CPU kernels on the host, _host.py)."""

from ..cpu import linalg_fused as _cpu
from ._host import on_host

fusion_repeated_fc_relu = on_host(_cpu.fusion_repeated_fc_relu)
fusion_squared_mat_sub = on_host(_cpu.fusion_squared_mat_sub)
