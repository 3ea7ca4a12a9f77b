"""CUDA kernels of segment_pool: their CPU twins on the host (kernels/cuda/_host.py; the output's rows are the
data's; correct on a GPU place, not fast)."""

from ..cpu import segment_pooling as _cpu
from ._host import on_host

segment_pool, segment_pool_grad = on_host(_cpu.segment_pool), on_host(_cpu.segment_pool_grad)
