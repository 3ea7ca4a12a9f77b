"""``paddle.geometric`` (Paddle 2.x's graph learning functions) in static mode: ``weighted_sample_neighbors``
(the registry's op of that name, pe_cli/ops/graph_sampling.py). The module's other names (message passing,
segment pooling, reindexing, uniform sampling) are not in pe: they raise one line saying so."""

from ..base.errors import unsupported
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper

__all__ = ["weighted_sample_neighbors"]

_NOT_YET = "pe has no op for it yet (of paddle.geometric, pe has weighted_sample_neighbors)"
for _name in (
    "send_u_recv",
    "send_ue_recv",
    "send_uv",
    "segment_sum",
    "segment_mean",
    "segment_min",
    "segment_max",
    "reindex_graph",
    "reindex_heter_graph",
    "sample_neighbors",
):
    globals()[_name] = unsupported(f"paddle.geometric.{_name}", _NOT_YET)


def weighted_sample_neighbors(
    row, colptr, edge_weight, input_nodes, sample_size=-1, eids=None, return_eids=False, name=None
):
    """(out_neighbors, out_count[, out_eids]): for each node of ``input_nodes``, up to ``sample_size`` of its
    in-neighbours in the CSC graph (``row``, ``colptr``) drawn by ``edge_weight`` without replacement (all of
    them with -1), node after node; ``out_count`` how many each got."""
    fn = "weighted_sample_neighbors"
    if return_eids and eids is None:
        raise ValueError("`eids` should not be None if `return_eids` is True.")
    for value, what, dtypes in (
        (row, "row", ("int32", "int64")),
        (colptr, "colptr", ("int32", "int64")),
        (edge_weight, "edge_weight", ("float32",)),
        (input_nodes, "input_nodes", ("int32", "int64")),
    ):
        check_variable_and_dtype(value, what, dtypes, fn)
    if return_eids:
        check_variable_and_dtype(eids, "eids", ("int32", "int64"), fn)
    helper = LayerHelper(fn, name=name)
    outs = [helper.create_variable_for_type_inference(row.dtype) for _ in range(3)]
    helper.append_op(
        fn,
        {
            "row": [row],
            "colptr": [colptr],
            "edge_weight": [edge_weight],
            "input_nodes": [input_nodes],
            "eids": [eids] if return_eids else [],
        },
        {"out_neighbors": [outs[0]], "out_count": [outs[1]], "out_eids": [outs[2]] if return_eids else []},
        {"sample_size": int(sample_size), "return_eids": bool(return_eids)},
    )
    return tuple(outs) if return_eids else tuple(outs[:2])
