"""CUDA twin of kernels/cpu/batch_shuffle.py: the order is drawn on the host from the seed (one
seed, one order on every device) and the rows are gathered there (kernels/cuda/_host.py)."""

from ._host import host_ops

HOST_OPS = host_ops("shuffle_batch", "shuffle_batch_grad")
