"""CUDA kernels of the graph sampling ops: their CPU twins on the host (a draw per node, sequential)."""

from ._host import host_ops

HOST_OPS = host_ops("weighted_sample_neighbors", "graph_sample_neighbors", "graph_khop_sampler")
