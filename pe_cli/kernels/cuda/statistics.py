"""CUDA kernels of the statistics family: their CPU twins on the host (kernels/cuda/_host.py: sorts per
line, and bincount, whose output's size the values decide; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("kthvalue", "kthvalue_grad", "mode", "mode_grad", "nanmedian", "nanmedian_grad", "bincount")
