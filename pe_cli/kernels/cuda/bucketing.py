"""CUDA kernels of pe_cli/ops/bucketing.py: their CPU twins on the host (kernels/cuda/_host.py; searches and
counts whose sizes the data decides; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("searchsorted", "histogram", "repeat_interleave", "repeat_interleave_grad")
