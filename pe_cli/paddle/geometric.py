"""``paddle.geometric`` (Paddle 2.x's graph learning functions) in static mode, each function built as Paddle
2.6.2's static branch builds it (its ops, slots, attributes and argument checks): the message passing functions
``send_u_recv``, ``send_ue_recv`` and ``send_uv`` (graph_send_recv, graph_send_ue_recv, graph_send_uv:
pe_cli/ops/graph_message_passing.py), the segment poolings ``segment_sum`` / ``mean`` / ``min`` / ``max``
(segment_pool), ``reindex_graph`` / ``reindex_heter_graph`` (graph_reindex) and the samplers
``sample_neighbors`` and ``weighted_sample_neighbors`` (pe_cli/ops/graph_sampling.py)."""

import numpy as np

from ..framework.variable import Variable
from ..layers.checks import check_dtype, check_type, check_variable_and_dtype
from ..layers.helper import LayerHelper
from .tensor_manip import cast, concat, reshape

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean", "segment_min", "segment_max"]
__all__ += ["reindex_graph", "reindex_heter_graph", "sample_neighbors", "weighted_sample_neighbors"]


_VALUES = ("float32", "float64", "int32", "int64", "float16")
_REDUCE_OPS = ("sum", "mean", "max", "min")
_MESSAGE_OPS = ("add", "sub", "mul", "div")


def _check_ops(reduce_op=None, message_op=None):
    if message_op is not None and message_op not in _MESSAGE_OPS:
        raise ValueError(f"message_op should be `add`, `sub`, `mul`, `div`, but received {message_op}")
    if reduce_op is not None and reduce_op not in _REDUCE_OPS:
        raise ValueError(f"reduce_op should be `sum`, `mean`, `max` or `min`, but received {reduce_op}")


def _out_size(inputs, attrs, out_size, layer):
    """Paddle's get_out_size_tensor_inputs: ``out_size`` an int (the attribute) or an int tensor (Out_size,
    cast to int32), None the attribute [0]."""
    if isinstance(out_size, Variable) or out_size:
        check_type(out_size, "out_size", (int, np.int32, np.int64, Variable), layer)
    if isinstance(out_size, Variable):
        check_dtype(out_size.dtype, "out_size", ["int32", "int64"], layer)
    if out_size is None:
        attrs["out_size"] = [0]
    elif isinstance(out_size, (int, np.int32, np.int64)):
        attrs["out_size"] = [int(out_size)]
    elif isinstance(out_size, Variable):
        out_size.stop_gradient = True
        inputs["Out_size"] = [cast(out_size, "int32") if out_size.dtype == "int64" else out_size]
    else:
        raise TypeError("Out_size only supports Variable or int.")


def _with_rank(x, n):
    """``x`` with 1s after its first dim up to ``n`` dims (Paddle's reshape_lhs_rhs): the first dim copied (0),
    the rest ``x``'s own."""
    rest = list(x.shape[1:])
    if sum(d < 0 for d in rest) > 1:
        raise ValueError(
            f"pe: send_ue_recv / send_uv: {x.name}'s dims after the first {rest} have more than one unknown"
        )
    return reshape(x, [0] + [1] * (n - len(x.shape)) + rest)


def _lhs_rhs(x, y, message_op):
    """Paddle's reshape_lhs_rhs and its message ops: 1-D operands as one column, the ranks made equal; ``sub`` as
    ``add`` of -y, ``div`` as ``mul`` of 1 / (y + 1e-12)."""
    x = reshape(x, [-1, 1]) if len(x.shape) == 1 else x
    y = reshape(y, [-1, 1]) if len(y.shape) == 1 else y
    if len(x.shape) != len(y.shape):
        n = max(len(x.shape), len(y.shape))
        x, y = _with_rank(x, n), _with_rank(y, n)
    if message_op == "sub":
        return x, -y, "add"
    if message_op == "div":
        return x, 1.0 / (y + 1e-12), "mul"
    return x, y, message_op


def _indices(src_index, dst_index, layer, names=("Src_index", "Dst_index")):
    check_variable_and_dtype(src_index, names[0], ("int32", "int64"), layer)
    check_variable_and_dtype(dst_index, names[1], ("int32", "int64"), layer)


def _received(layer_name, op, inputs, attrs, x, out_size, name):
    _out_size(inputs, attrs, out_size, op)
    helper = LayerHelper(layer_name, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    dst_count = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(op, inputs, {"Out": [out], "Dst_count": [dst_count]}, attrs)
    return out


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """Out[d] = the ``reduce_op`` (sum, mean, max, min) of x[src_index[i]] over the edges i with dst_index[i] = d;
    ``out_size`` rows (x's where None or <= 0)."""
    _check_ops(reduce_op)
    op = "graph_send_recv"
    check_variable_and_dtype(x, "X", _VALUES, op)
    _indices(src_index, dst_index, op)
    inputs = {"X": [x], "Src_index": [src_index], "Dst_index": [dst_index]}
    return _received("send_u_recv", op, inputs, {"reduce_op": reduce_op.upper()}, x, out_size, name)


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None, name=None):
    """Out[d] = the ``reduce_op`` of x[src_index[i]] ``message_op`` (add, sub, mul, div) y[i] over the edges i
    with dst_index[i] = d."""
    _check_ops(reduce_op, message_op)
    x, y, message_op = _lhs_rhs(x, y, message_op)
    op = "graph_send_ue_recv"
    check_variable_and_dtype(x, "X", _VALUES, op)
    check_variable_and_dtype(y, "Y", _VALUES, op)
    _indices(src_index, dst_index, op)
    inputs = {"X": [x], "Y": [y], "Src_index": [src_index], "Dst_index": [dst_index]}
    attrs = {"message_op": message_op.upper(), "reduce_op": reduce_op.upper()}
    return _received("send_ue_recv", op, inputs, attrs, x, out_size, name)


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """out[i] = x[src_index[i]] ``message_op`` (add, sub, mul, div) y[dst_index[i]], one row per edge."""
    _check_ops(message_op=message_op)
    x, y, message_op = _lhs_rhs(x, y, message_op)
    op = "graph_send_uv"
    check_variable_and_dtype(x, "x", ("int32", "int64", "float32", "float64", "float16"), op)
    check_variable_and_dtype(y, "y", ("int32", "int64", "float32", "float64", "float16"), op)
    _indices(src_index, dst_index, op, ("src_index", "dst_index"))
    helper = LayerHelper(op, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {"x": [x], "y": [y], "src_index": [src_index], "dst_index": [dst_index]}
    helper.append_op(op, inputs, {"out": [out]}, {"message_op": message_op.upper()})
    return out


def _segment(kind):
    def pool(data, segment_ids, name=None):
        check_variable_and_dtype(data, "X", _VALUES + ("uint16",), "segment_pool")
        check_variable_and_dtype(segment_ids, "SegmentIds", ("int32", "int64"), "segment_pool")
        helper = LayerHelper(f"segment_{kind}", name=name)
        out = helper.create_variable_for_type_inference(data.dtype)
        summed_ids = helper.create_variable_for_type_inference(data.dtype)
        helper.append_op(
            "segment_pool",
            {"X": [data], "SegmentIds": [segment_ids]},
            {"Out": [out], "SummedIds": [summed_ids]},
            {"pooltype": kind.upper()},
        )
        return out

    pool.__name__ = pool.__qualname__ = f"segment_{kind}"
    pool.__doc__ = f"Out[s] = the {kind} of the rows of ``data`` whose sorted ``segment_ids`` is s (segment_pool)."
    return pool


segment_sum, segment_mean, segment_min, segment_max = (_segment(k) for k in ("sum", "mean", "min", "max"))


def _reindex(layer, x, neighbors, count, value_buffer, index_buffer, name, x_layer="graph_reindex"):
    """Paddle's graph_reindex op as reindex_graph / reindex_heter_graph build it: the hash-table buffers (a GPU
    kernel's) passed only when both are given."""
    buffers = value_buffer is not None and index_buffer is not None
    check_variable_and_dtype(x, "X", ("int32", "int64"), x_layer)
    check_variable_and_dtype(neighbors, "Neighbors", ("int32", "int64"), "graph_reindex")
    check_variable_and_dtype(count, "Count", ("int32",), "graph_reindex")
    if buffers:
        check_variable_and_dtype(value_buffer, "HashTable_Value", ("int32",), "graph_reindex")
        check_variable_and_dtype(index_buffer, "HashTable_Index", ("int32",), "graph_reindex")
    helper = LayerHelper(layer, name=name)
    outs = [helper.create_variable_for_type_inference(x.dtype) for _ in range(3)]
    return neighbors, count, buffers, helper, outs


def _append_reindex(helper, x, neighbors, count, value_buffer, index_buffer, buffers, outs):
    inputs = {"X": [x], "Neighbors": [neighbors], "Count": [count]}
    inputs.update(HashTable_Value=[value_buffer] if buffers else [], HashTable_Index=[index_buffer] if buffers else [])
    slots = ("Reindex_Src", "Reindex_Dst", "Out_Nodes")
    helper.append_op("graph_reindex", inputs, {s: [v] for s, v in zip(slots, outs)}, {})
    return tuple(outs)


def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """(reindex_src, reindex_dst, out_nodes): the nodes ``x`` and their ``neighbors`` (``count[i]`` of them for
    x[i]) given ids from 0, x's nodes first, then the new neighbours in order of first appearance."""
    neighbors, count, buffers, helper, outs = _reindex(
        "reindex_graph", x, neighbors, count, value_buffer, index_buffer, name
    )
    return _append_reindex(helper, x, neighbors, count, value_buffer, index_buffer, buffers, outs)


def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """reindex_graph over several edge types: ``neighbors`` and ``count`` lists, one per edge type, joined (as
    Paddle's static branch joins them: concat, then concat of the result again)."""
    neighbors = concat([neighbors] if isinstance(neighbors, Variable) else neighbors, axis=0)
    count = concat([count] if isinstance(count, Variable) else count, axis=0)
    neighbors, count, buffers, helper, outs = _reindex(
        "reindex_heter_graph", x, neighbors, count, value_buffer, index_buffer, name, "heter_graph_reindex"
    )
    neighbors, count = concat(neighbors, axis=0), concat(count, axis=0)
    return _append_reindex(helper, x, neighbors, count, value_buffer, index_buffer, buffers, outs)


def sample_neighbors(
    row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False, perm_buffer=None, name=None
):
    """(out_neighbors, out_count[, out_eids]): for each node of ``input_nodes``, up to ``sample_size`` of its
    in-neighbours in the CSC graph (``row``, ``colptr``) drawn uniformly without replacement (all of them with
    -1), node after node; ``out_count`` how many each got (int32). ``perm_buffer``: a GPU kernel's, not read."""
    fn = "graph_sample_neighbors"
    if return_eids and eids is None:
        raise ValueError("`eids` should not be None if `return_eids` is True.")
    check_variable_and_dtype(row, "Row", ("int32", "int64"), fn)
    check_variable_and_dtype(colptr, "Col_Ptr", ("int32", "int64"), fn)
    check_variable_and_dtype(input_nodes, "X", ("int32", "int64"), fn)
    if return_eids:
        check_variable_and_dtype(eids, "Eids", ("int32", "int64"), fn)
    if perm_buffer is not None:
        check_variable_and_dtype(perm_buffer, "Perm_Buffer", ("int32", "int64"), fn)
    helper = LayerHelper("sample_neighbors", name=name)
    outs = [helper.create_variable_for_type_inference(row.dtype) for _ in range(3)]
    inputs = {"Row": [row], "Col_Ptr": [colptr], "X": [input_nodes], "Eids": [eids] if return_eids else []}
    inputs["Perm_Buffer"] = [perm_buffer] if perm_buffer is not None else []
    attrs = {"sample_size": sample_size, "return_eids": return_eids, "flag_perm_buffer": perm_buffer is not None}
    helper.append_op(fn, inputs, {"Out": [outs[0]], "Out_Count": [outs[1]], "Out_Eids": [outs[2]]}, attrs)
    return tuple(outs) if return_eids else tuple(outs[:2])


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
