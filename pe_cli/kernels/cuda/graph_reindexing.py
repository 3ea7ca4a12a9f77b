"""CUDA kernel of graph_reindex: its CPU twin on the host (kernels/cuda/_host.py; a hash map over the nodes,
Out_Nodes' length the values'; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("graph_reindex")
