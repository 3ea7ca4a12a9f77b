"""CUDA kernels of the cumulative family: their CPU twins on the host (kernels/cuda/_host.py: scans along
an axis, each one sequential pass per line; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "cumprod", "cumprod_grad", "cummax", "cummax_grad", "cummin", "cummin_grad", "logcumsumexp", "logcumsumexp_grad"
)
