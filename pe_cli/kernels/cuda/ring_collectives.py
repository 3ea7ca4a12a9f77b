"""CUDA kernels of pe_cli/ops/ring_collectives.py: the ring ops of one process pass X on (no device work);
c_embedding's lookup on the host (kernels/cuda/_host.py)."""

from ._host import as_is, host_ops

HOST_OPS = {**host_ops("ring_of_one", "ring_wait", wrap=as_is), **host_ops("c_embedding", "c_embedding_grad")}
