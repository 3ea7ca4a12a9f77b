"""CUDA kernels of pe_cli/ops/dependencies.py: the CPU's, which pass X on as it is (on the device); transfer_dtype's
cast on the host."""

from ..cpu.dependencies import depend, nop, npu_identity, share_buffer, share_data  # noqa: F401
from ..cpu import dependencies as _cpu
from ._host import on_host

transfer_dtype = on_host(_cpu.transfer_dtype)
