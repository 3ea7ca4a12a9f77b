"""CUDA kernels of the statistics family: their CPU twins on the host (kernels/cuda/_host.py: sorts per
line, and bincount, whose output's size the values decide; correct on a GPU place, not fast)."""

from ..cpu import statistics as _cpu
from ._host import on_host

kthvalue, kthvalue_grad = on_host(_cpu.kthvalue), on_host(_cpu.kthvalue_grad)
mode, mode_grad = on_host(_cpu.mode), on_host(_cpu.mode_grad)
nanmedian, nanmedian_grad = on_host(_cpu.nanmedian), on_host(_cpu.nanmedian_grad)
bincount = on_host(_cpu.bincount)
