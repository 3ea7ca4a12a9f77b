"""CUDA kernels of renorm: their CPU twins on the host (kernels/cuda/_host.py; correct on a GPU place, not fast)."""

from ..cpu import renormalizing as _cpu
from ._host import on_host

renorm, renorm_grad = on_host(_cpu.renorm), on_host(_cpu.renorm_grad)
