"""CUDA kernels of pe_cli/ops/dependencies.py: the CPU's, which pass X on as it is (on the device)."""
from ..cpu.dependencies import depend, nop, share_data  # noqa: F401
