"""CUDA kernels of ops/feed_fetch.py: the holders' values as they are (device arrays stay on the device)."""

from ._host import as_is, host_ops

HOST_OPS = host_ops("feed", "fetch", wrap=as_is)
