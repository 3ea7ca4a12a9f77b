"""CUDA kernels of pe_cli/ops/dependencies.py: the CPU's, which pass X on as it is (on the device); transfer_dtype's
cast on the host."""

from ._host import as_is, host_ops

HOST_OPS = {
    **host_ops("depend", "nop", "npu_identity", "share_buffer", "share_data", wrap=as_is),
    **host_ops("transfer_dtype"),
}
