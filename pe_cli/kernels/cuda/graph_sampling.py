"""CUDA kernels of the graph sampling ops: their CPU twins on the host (a draw per node, sequential)."""

from ..cpu import graph_sampling as _cpu
from ._host import on_host

weighted_sample_neighbors = on_host(_cpu.weighted_sample_neighbors)
