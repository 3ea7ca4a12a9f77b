"""CUDA twin of kernels/cpu/batch_shuffle.py: the order is drawn on the host from the seed (one
seed, one order on every device) and the rows are gathered there (kernels/cuda/_host.py)."""

from ..cpu import batch_shuffle as _cpu
from ._host import on_host

shuffle_batch = on_host(_cpu.shuffle_batch)
shuffle_batch_grad = on_host(_cpu.shuffle_batch_grad)
