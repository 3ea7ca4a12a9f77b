"""CUDA kernels of the selecting family: their CPU twins on the host (kernels/cuda/_host.py: a sort along an
axis, a boolean index whose size the data decides; correct on a GPU place, not fast)."""

from ..cpu import selecting as _cpu
from ._host import on_host

top_k_v2, top_k_v2_grad = on_host(_cpu.top_k_v2), on_host(_cpu.top_k_v2_grad)
masked_select, masked_select_grad = on_host(_cpu.masked_select), on_host(_cpu.masked_select_grad)
