"""CUDA kernels of ops/normalization_activated.py: the CPU kernels on the host (batch norm's statistics
and the activation's inverse, per op; a GPU program builds batch_norm and the activation instead)."""

from ..cpu import normalization_activated as _cpu
from ._host import on_host

inplace_abn = on_host(_cpu.inplace_abn)
inplace_abn_grad = on_host(_cpu.inplace_abn_grad)
