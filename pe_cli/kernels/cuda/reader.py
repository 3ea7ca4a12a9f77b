"""CUDA twins of kernels/cpu/reader.py: the reader variables' markers stay on the host."""

from ._host import as_is, host_ops

HOST_OPS = host_ops("create_double_buffer_reader", "create_py_reader", "read", wrap=as_is)
