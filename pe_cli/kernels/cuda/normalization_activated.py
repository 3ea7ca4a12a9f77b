"""CUDA kernels of ops/normalization_activated.py: the CPU kernels on the host (batch norm's statistics
and the activation's inverse, per op; a GPU program builds batch_norm and the activation instead)."""

from ._host import host_ops

HOST_OPS = host_ops("inplace_abn", "inplace_abn_grad")
