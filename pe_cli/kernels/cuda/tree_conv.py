"""CUDA twin of kernels/cpu/tree_conv.py: the patches follow each tree's edges, so they are built and
applied on the host (kernels/cuda/_host.py)."""

from ._host import host_ops

HOST_OPS = host_ops("tree_conv", "tree_conv_grad")
