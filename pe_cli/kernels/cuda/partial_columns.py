"""CUDA twin of kernels/cpu/partial_columns.py: column windows are strided copies, done on the
host (kernels/cuda/_host.py); these ops sit once at a CTR model's input."""

from ._host import host_ops

HOST_OPS = host_ops("partial_concat", "partial_sum", "partial_concat_grad", "partial_sum_grad")
