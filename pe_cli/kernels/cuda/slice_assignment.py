"""CUDA kernels of set_value: their CPU twins on the host (kernels/cuda/_host.py; an index region of any
strides; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("set_value", "set_value_grad")
