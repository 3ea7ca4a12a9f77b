"""``paddle.incubate``'s graph operators (Paddle 2.6 keeps them beside paddle.geometric's, which they predate):
``graph_send_recv`` (graph_send_recv, its ``pool_type`` the op's reduce_op), ``graph_reindex``,
``graph_sample_neighbors`` and ``segment_sum`` / ``mean`` / ``min`` / ``max``, built as Paddle 2.6.2's static
branches build them, through pe_cli/paddle/geometric.py's builders. ``graph_khop_sampler`` is not in pe."""

from ...base.errors import unsupported
from ...layers.checks import check_variable_and_dtype
from .. import geometric
from ..geometric import segment_max, segment_mean, segment_min, segment_sum  # noqa: F401  (the same functions)

graph_khop_sampler = unsupported("paddle.incubate.graph_khop_sampler", "pe has no graph_khop_sampler op yet")


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
