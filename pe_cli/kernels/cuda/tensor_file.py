"""CUDA kernels of ops/tensor_file.py: the files read and written on the host, the tensors copied
between host and device."""

from ._host import host_ops

HOST_OPS = host_ops("load", "load_combine", "save", "save_combine", "read_file")
