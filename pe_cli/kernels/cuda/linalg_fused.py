"""CUDA kernels of ops/linalg_fused.py: Fluid has CPU kernels only, and falls back to them on a GPU
place; so does pe (the CPU kernels on the host, _host.py)."""

from ._host import host_ops

HOST_OPS = host_ops("fusion_repeated_fc_relu", "fusion_squared_mat_sub")
