"""CUDA kernels of ops/parameter_service.py: the CPU's, which say what service each op needs."""

from ._host import as_is, host_ops

HOST_OPS = host_ops(
    "pull_box_sparse",
    "pull_sparse",
    "pull_sparse_v2",
    "push_box_sparse",
    "push_dense",
    "push_sparse",
    "push_sparse_v2",
    wrap=as_is,
)
