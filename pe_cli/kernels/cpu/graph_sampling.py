"""Kernels of the graph sampling ops (pe_cli/ops/graph_sampling.py), on the seeded numpy Generator the
executor hands them: weighted_sample_neighbors a structured kernel (its rule: shapes/graph_sampling.py), the "draws"
variant handing over the arrays it made (``fresh``: their lengths are the draws'); the kernel by name is the rule and
the out-kernel through kernels/structured.adapter."""

import numpy as np

from ...base.errors import PeError
from ...shapes.graph_sampling import (
    graph_khop_sampler_meta,
    graph_sample_neighbors_meta,
    weighted_sample_neighbors_meta,
)
from ..structured import adapter, fresh_outputs


def _neighbors(n, colptr, num_edges, op="weighted_sample_neighbors"):
    if not 0 <= n < len(colptr) - 1:
        raise PeError(
            f"{op}: input node {n} is not a node of the graph "
            f"(colptr has {len(colptr)} offsets: nodes 0 to {len(colptr) - 2})"
        )
    start, end = int(colptr[n]), int(colptr[n + 1])
    if not 0 <= start <= end <= num_edges:
        raise PeError(f"{op}: colptr[{n}:{n + 2}] = [{start}, {end}] is not a range of the {num_edges} edges")
    return start, end


def _weighted_sample_neighbors(ins, outs, attrs, meta, ctx):
    row, colptr = np.asarray(ins["row"]), np.asarray(ins["colptr"]).reshape(-1)
    weight, nodes = np.asarray(ins["edge_weight"]).reshape(-1), np.asarray(ins["input_nodes"]).reshape(-1)
    eids = ins.get("eids")
    k, rng = attrs["sample_size"], ctx.rng
    picked, counts = [], []
    for n in nodes.tolist():
        start, end = _neighbors(n, colptr, len(row))
        edges = np.arange(start, end)
        if k != -1 and len(edges) > k:
            with np.errstate(divide="ignore"):
                keys = rng.random(len(edges)) ** (1.0 / weight[start:end].astype(np.float64))
            edges = edges[np.sort(np.argsort(-keys, kind="stable")[:k])]
        picked.append(edges)
        counts.append(len(edges))
    chosen = np.concatenate(picked) if picked else np.zeros(0, np.int64)
    made = {
        "out_neighbors": row.reshape(-1)[chosen].astype(row.dtype),
        "out_count": np.asarray(counts, dtype=row.dtype),
    }
    if attrs["return_eids"]:
        made["out_eids"] = np.asarray(eids).reshape(-1)[chosen].astype(row.dtype)
    fresh_outputs(made, ins, outs, meta)


_weighted_sample_neighbors.takes_context = True  # (the call's Generator)
WEIGHTED_SAMPLE_NEIGHBORS = _weighted_sample_neighbors
weighted_sample_neighbors = adapter(
    weighted_sample_neighbors_meta, WEIGHTED_SAMPLE_NEIGHBORS, "weighted_sample_neighbors"
)


def _shuffled_first(edges, k, rng):
    """``edges`` where -1 or no more than k, else the first k after Paddle's partial Fisher-Yates shuffle (each
    step swaps the next place with a place drawn from it on), drawn on ``rng``."""
    if k == -1 or len(edges) <= k:
        return edges
    for i in range(k):
        j = i + int(rng.integers(0, len(edges) - i))
        edges[i], edges[j] = edges[j], edges[i]
    return edges[:k]


def _graph_sample_neighbors(ins, outs, attrs, meta, ctx):
    """Each node's in-neighbours in CSC order where it has no more than sample_size (all of them with -1, as
    Paddle's GPU kernel and docs have it; its CPU kernel fails on -1), else sample_size of them drawn as Paddle's
    CPU kernel draws them, a partial Fisher-Yates shuffle (the first k of the shuffled edges, in the shuffle's
    order), on the call's Generator (Paddle's std::random_device draws can be reproduced by nothing)."""
    row, colptr = np.asarray(ins["Row"]).reshape(-1), np.asarray(ins["Col_Ptr"]).reshape(-1)
    nodes, k, rng = np.asarray(ins["X"]).reshape(-1), attrs["sample_size"], ctx.rng
    picked, counts = [], []
    for n in nodes.tolist():
        start, end = _neighbors(n, colptr, len(row), "graph_sample_neighbors")
        edges = _shuffled_first(np.arange(start, end), k, rng)
        picked.append(edges)
        counts.append(len(edges))
    chosen = np.concatenate(picked) if picked else np.zeros(0, np.int64)
    made = {"Out": row[chosen].astype(row.dtype), "Out_Count": np.asarray(counts, np.int32)}
    eids = np.asarray(ins["Eids"]).reshape(-1)[chosen] if attrs["return_eids"] else np.zeros(0)
    made["Out_Eids"] = eids.astype(row.dtype)
    fresh_outputs(made, ins, outs, meta)


_graph_sample_neighbors.takes_context = True  # (the call's Generator)
GRAPH_SAMPLE_NEIGHBORS = _graph_sample_neighbors
graph_sample_neighbors = adapter(graph_sample_neighbors_meta, GRAPH_SAMPLE_NEIGHBORS, "graph_sample_neighbors")


def _khop_layers(row, colptr, nodes, sizes, rng):
    """Paddle's CPU kernel's layers: each layer's nodes (the first: X without adjacent repeats; the next: the
    new neighbours, sorted, less that layer's nodes), their drawn edges and counts."""
    op = "graph_khop_sampler"
    layers = []
    inputs = [n for i, n in enumerate(nodes) if i == 0 or n != nodes[i - 1]]
    for depth, k in enumerate(sizes):
        if not inputs:
            raise PeError(f"{op}: layer {depth} has no new node to sample from (Paddle's kernel reads past its lists)")
        picked = [_shuffled_first(np.arange(*_neighbors(n, colptr, len(row), op)), k, rng) for n in inputs]
        edges = np.concatenate(picked) if picked else np.zeros(0, np.int64)
        if depth == 0 and not edges.size:
            raise PeError(f"{op}: none of the input nodes X has a neighbour (Paddle refuses it)")
        layers.append((list(inputs), edges, [len(p) for p in picked]))
        inputs = sorted(set(row[edges].tolist()) - set(inputs))
    return layers


def _graph_khop_sampler(ins, outs, attrs, meta, ctx):
    """The k-hop subgraph Paddle 2.6.2's CPU kernel samples, layer after layer (sample_sizes[i] neighbours of
    each node of layer i, drawn as graph_sample_neighbors draws them, on the call's Generator), then reindexed as
    graph_reindex reindexes: Sample_Index the layers' nodes then the new sources, Out_Src / Out_Dst each edge's
    ids [E, 1], Reindex_X the id of each node of X, Out_Eids (return_eids) the edges' ids."""
    row, colptr = np.asarray(ins["Row"]).reshape(-1), np.asarray(ins["Col_Ptr"]).reshape(-1)
    nodes = np.asarray(ins["X"]).reshape(-1)
    for slot, value in (("Row", row), ("Col_Ptr", colptr), ("X", nodes)):
        if not value.size:
            raise PeError(f"graph_khop_sampler: {slot} is empty (Paddle refuses it)")
    layers = _khop_layers(row, colptr, nodes.tolist(), list(attrs["sample_sizes"]), ctx.rng)
    ids, listed = {}, []
    for dst_nodes, _, _ in layers:
        for n in dst_nodes:
            ids[n] = len(listed)
            listed.append(n)
    edges = np.concatenate([e for _, e, _ in layers])
    src = []
    for n in row[edges].tolist():
        if n not in ids:
            ids[n] = len(listed)
            listed.append(n)
        src.append(ids[n])
    dst = [ids[n] for dst_nodes, _, counts in layers for n, c in zip(dst_nodes, counts) for _ in range(c)]
    dtype = row.dtype
    eids = np.asarray(ins["Eids"]).reshape(-1)[edges] if attrs["return_eids"] else np.zeros(0)
    made = {
        "Out_Src": np.asarray(src, dtype).reshape(-1, 1),
        "Out_Dst": np.asarray(dst, dtype).reshape(-1, 1),
        "Sample_Index": np.asarray(listed, dtype),
        "Reindex_X": np.asarray([ids[n] for n in nodes.tolist()], dtype).reshape(np.shape(ins["X"])),
        "Out_Eids": eids.astype(dtype),
    }
    fresh_outputs(made, ins, outs, meta)


_graph_khop_sampler.takes_context = True  # (the call's Generator)
GRAPH_KHOP_SAMPLER = _graph_khop_sampler
graph_khop_sampler = adapter(graph_khop_sampler_meta, GRAPH_KHOP_SAMPLER, "graph_khop_sampler")
