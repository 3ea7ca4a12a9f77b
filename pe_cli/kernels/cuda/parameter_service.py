"""CUDA kernels of ops/parameter_service.py: the CPU's, which say what service each op needs."""

from ..cpu.parameter_service import (
    pull_box_sparse,
    pull_sparse,
    pull_sparse_v2,
    push_box_sparse,  # noqa: F401
    push_dense,
    push_sparse,
    push_sparse_v2,
)
