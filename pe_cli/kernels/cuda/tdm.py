"""CUDA twin of kernels/cpu/tdm.py: tree lookups and sampling are host work (kernels/cuda/_host.py)."""

from ._host import host_ops

HOST_OPS = host_ops("tdm_child", "tdm_sampler")
