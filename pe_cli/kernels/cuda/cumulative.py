"""CUDA kernels of the cumulative family: their CPU twins on the host (kernels/cuda/_host.py: scans along
an axis, each one sequential pass per line; correct on a GPU place, not fast)."""

from ..cpu import cumulative as _cpu
from ._host import on_host

cumprod, cumprod_grad = on_host(_cpu.cumprod), on_host(_cpu.cumprod_grad)
cummax, cummax_grad = on_host(_cpu.cummax), on_host(_cpu.cummax_grad)
cummin, cummin_grad = on_host(_cpu.cummin), on_host(_cpu.cummin_grad)
logcumsumexp, logcumsumexp_grad = on_host(_cpu.logcumsumexp), on_host(_cpu.logcumsumexp_grad)
