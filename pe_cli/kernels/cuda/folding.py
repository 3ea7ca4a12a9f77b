"""fold's CUDA kernels: the CPU's on the host (kernels/cuda/_host.py; correct on a GPU place, not fast)."""

from ..cpu import folding as _cpu
from ._host import on_host

fold, fold_grad = on_host(_cpu.fold), on_host(_cpu.fold_grad)
