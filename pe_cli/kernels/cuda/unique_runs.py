"""CUDA kernel of unique_consecutive: its CPU twin on the host (kernels/cuda/_host.py; sizes the data decides;
correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("unique_consecutive")
