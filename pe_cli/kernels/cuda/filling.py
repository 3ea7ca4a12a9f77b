"""CUDA kernels of pe_cli/ops/filling.py: their CPU twins on the host, the results copied over
(kernels/cuda/_host.py: small fills; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("fill_any", "fill_any_grad", "empty", "full_int_array", "tril_indices", "triu_indices", "logspace")
