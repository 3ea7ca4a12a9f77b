"""CUDA kernel of unique_consecutive: its CPU twin on the host (kernels/cuda/_host.py; sizes the data decides;
correct on a GPU place, not fast)."""

from ..cpu import unique_runs as _cpu
from ._host import on_host

unique_consecutive = on_host(_cpu.unique_consecutive)
