"""index_put's CUDA kernels: the CPU's on the host (kernels/cuda/_host.py; correct on a GPU place, not fast)."""

from ..cpu import index_assignment as _cpu
from ._host import on_host

index_put, index_put_grad = on_host(_cpu.index_put), on_host(_cpu.index_put_grad)
