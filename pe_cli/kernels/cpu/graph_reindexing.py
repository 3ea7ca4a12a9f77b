"""Kernels of pe_cli/ops/graph_reindexing.py (numpy): the out-kernel of shapes/graph_reindexing.py's meta rule
(fresh), as Paddle 2.6.2's CPU kernel reindexes: X's nodes first, in order, each one id (a node X holds twice
is listed twice and keeps its last id), then each neighbour not seen before, in order of first appearance;
Reindex_Src the id of each neighbour, Reindex_Dst the id of the node whose neighbour it is, Count read as
edge types one after the other (reindex_heter_graph's), each X's counts. HashTable_Value / HashTable_Index
(a GPU kernel's buffers) are not read, as Paddle's CPU kernel reads neither."""

import numpy as np

from ...base.errors import PeError
from ...shapes.graph_reindexing import graph_reindex_meta
from ..structured import adapter, fresh_kernel


def _graph_reindex(ins, attrs):
    op = "graph_reindex"
    x = np.asarray(ins["X"]).reshape(-1)
    neighbors = np.asarray(ins["Neighbors"]).reshape(-1)
    count = np.asarray(ins["Count"]).reshape(-1).astype(np.int64)
    if not x.size:
        raise PeError(f"{op}: X holds no node (Paddle 2.6.2: 'The first of dims should not be equal to 0.')")
    if count.size % x.size:
        raise PeError(f"{op}: Count holds {count.size} counts; it must hold one per node of X ({x.size}) per edge type")
    if count.size and count.min() < 0 or int(count.sum()) != neighbors.size:
        raise PeError(
            f"{op}: Count sums to {int(count.sum())} (min {count.min() if count.size else 0}); Neighbors holds "
            f"{neighbors.size} edges"
        )
    ids = {}
    for i, node in enumerate(x.tolist()):
        ids[node] = i
    nodes = x.tolist()
    src = np.empty(neighbors.size, x.dtype)
    for i, node in enumerate(neighbors.tolist()):
        if node not in ids:
            ids[node] = len(nodes)
            nodes.append(node)
        src[i] = ids[node]
    x_ids = np.array([ids[node] for node in x.tolist()], x.dtype)
    dst = np.repeat(np.tile(x_ids, count.size // x.size), count).astype(x.dtype)
    return {"Reindex_Src": src, "Reindex_Dst": dst, "Out_Nodes": np.array(nodes, x.dtype)}


GRAPH_REINDEX = fresh_kernel(_graph_reindex, "graph_reindex_out")
graph_reindex = adapter(graph_reindex_meta, GRAPH_REINDEX, "graph_reindex")
