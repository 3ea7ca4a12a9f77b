"""CUDA kernels of pe_cli/ops/ring_collectives.py: the ring ops of one process pass X on (no device work);
c_embedding's lookup on the host (kernels/cuda/_host.py)."""

from ..cpu import ring_collectives as _cpu
from ..cpu.ring_collectives import ring_of_one, ring_wait  # noqa: F401
from ._host import on_host

c_embedding, c_embedding_grad = on_host(_cpu.c_embedding), on_host(_cpu.c_embedding_grad)
