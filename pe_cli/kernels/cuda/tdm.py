"""CUDA twin of kernels/cpu/tdm.py: tree lookups and sampling are host work (kernels/cuda/_host.py)."""

from ..cpu import tdm as _cpu
from ._host import on_host

tdm_child = on_host(_cpu.tdm_child)
tdm_sampler = on_host(_cpu.tdm_sampler)
