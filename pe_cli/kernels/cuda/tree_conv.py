"""CUDA twin of kernels/cpu/tree_conv.py: the patches follow each tree's edges, so they are built and
applied on the host (kernels/cuda/_host.py)."""

from ..cpu import tree_conv as _cpu
from ._host import on_host

tree_conv = on_host(_cpu.tree_conv)
tree_conv_grad = on_host(_cpu.tree_conv_grad)
