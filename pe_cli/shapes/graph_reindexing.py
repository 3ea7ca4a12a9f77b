"""The meta rule of graph_reindex (ops/graph_reindexing.py), a ``fresh`` variant ("numpy": the arrays the numpy
form in kernels/<device>/graph_reindexing.py made, handed over): Reindex_Src and Reindex_Dst one id per edge
(Neighbors' elements), Out_Nodes as many as the distinct nodes the values give (-1), each of X's dtype."""

import math

import numpy as np

from .structured import Meta


def graph_reindex_meta(attrs, ins, facts):
    """graph_reindex's Reindex_Src and Reindex_Dst [edges], Out_Nodes [-1]."""
    edges = math.prod(ins["Neighbors"].shape)
    dtype = np.dtype(ins["X"].dtype)
    outputs = {"Reindex_Src": ((edges,), dtype), "Reindex_Dst": ((edges,), dtype), "Out_Nodes": ((-1,), dtype)}
    return Meta(outputs, "numpy", fresh=True)
