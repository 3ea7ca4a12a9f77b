"""CUDA twin of kernels/cpu/rank_attention.py: the gathers by rank are host work here
(kernels/cuda/_host.py); Fluid's CUDA kernels expand the same blocks and multiply them."""

from ..cpu import rank_attention as _cpu
from ._host import on_host

rank_attention = on_host(_cpu.rank_attention)
rank_attention_grad = on_host(_cpu.rank_attention_grad)
