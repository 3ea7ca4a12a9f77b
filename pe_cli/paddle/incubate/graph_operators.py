"""``paddle.incubate``'s graph operators (Paddle 2.6 keeps them beside paddle.geometric's, which they predate):
``graph_send_recv`` (graph_send_recv, its ``pool_type`` the op's reduce_op), ``graph_reindex``,
``graph_sample_neighbors`` and ``segment_sum`` / ``mean`` / ``min`` / ``max``, built as Paddle 2.6.2's static
branches build them, through pe_cli/paddle/geometric.py's builders; and ``graph_khop_sampler`` (its op of that
name, pe's seeded draws)."""

from ...layers.checks import check_variable_and_dtype
from ...layers.helper import LayerHelper
from .. import geometric
from ..geometric import segment_max, segment_mean, segment_min, segment_sum  # noqa: F401  (the same functions)


def graph_khop_sampler(row, colptr, input_nodes, sample_sizes, sorted_eids=None, return_eids=False, name=None):
    """(edge_src, edge_dst, sample_index, reindex_nodes[, edge_eids]): the k-hop subgraph around ``input_nodes``,
    ``sample_sizes[i]`` in-neighbours of each node of layer i drawn uniformly, its nodes reindexed from 0."""
    fn = "graph_khop_sampler"
    check_variable_and_dtype(row, "Row", ("int32", "int64"), fn)
    if return_eids:
        if sorted_eids is None:
            raise ValueError("`sorted_eid` should not be None if return_eids is True.")
        check_variable_and_dtype(sorted_eids, "Eids", ("int32", "int64"), fn)
    check_variable_and_dtype(colptr, "Col_Ptr", ("int32", "int64"), fn)
    check_variable_and_dtype(input_nodes, "X", ("int32", "int64"), fn)
    helper = LayerHelper(fn, name=name)
    outs = [helper.create_variable_for_type_inference(row.dtype) for _ in range(5)]
    inputs = {"Row": [row], "Eids": [sorted_eids] if sorted_eids is not None else [], "Col_Ptr": [colptr]}
    inputs["X"] = [input_nodes]
    slots = ("Out_Src", "Out_Dst", "Sample_Index", "Reindex_X", "Out_Eids")
    attrs = {"sample_sizes": list(sample_sizes), "return_eids": return_eids}
    helper.append_op(fn, inputs, {s: [v] for s, v in zip(slots, outs)}, attrs)
    return tuple(outs) if return_eids else tuple(outs[:4])


def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    """paddle.geometric.send_u_recv under its older name: ``pool_type`` sum, mean, max or min."""
    if pool_type not in ("sum", "mean", "max", "min"):
        raise ValueError(f"pool_type should be `sum`, `mean`, `max` or `min`, but received {pool_type}")
    check_variable_and_dtype(x, "X", ("float32", "float64", "int32", "int64"), "graph_send_recv")
    return geometric.send_u_recv(x, src_index, dst_index, pool_type, out_size, name)


def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None, flag_buffer_hashtable=False, name=None):
    """paddle.geometric.reindex_graph under its older name: the hash-table buffers passed with
    ``flag_buffer_hashtable`` alone."""
    if flag_buffer_hashtable and (value_buffer is None or index_buffer is None):
        raise ValueError("`value_buffer` and `index_buffer` should notbe None if `flag_buffer_hashtable` is True.")
    buffers = (value_buffer, index_buffer) if flag_buffer_hashtable else (None, None)
    return geometric.reindex_graph(x, neighbors, count, *buffers, name=name)


def graph_sample_neighbors(
    row,
    colptr,
    input_nodes,
    eids=None,
    perm_buffer=None,
    sample_size=-1,
    return_eids=False,
    flag_perm_buffer=False,
    name=None,
):
    """paddle.geometric.sample_neighbors under its older name (its arguments in Paddle 2.6's older order)."""
    if flag_perm_buffer and perm_buffer is None:
        raise ValueError("`perm_buffer` should not be None if `flag_perm_buffer`is True.")
    buffer = perm_buffer if flag_perm_buffer else None
    return geometric.sample_neighbors(row, colptr, input_nodes, sample_size, eids, return_eids, buffer, name)
