"""Fluid 1.8's ``contrib.layers.nn``: layers of the contrib ops. Those with an op of their own
are pe_cli/layers/<family>.py's (fused_embedding_seq_pool: ops/sequence_fused.py's op);
fused_elemwise_activation is made of the ops it fuses (the same values and gradients), multiclass_nms2
is fluid.layers' multiclass_nms with the kept boxes' indices."""

from .... import layers
from ....base.errors import ArgumentTypeError
from ....layers.batch_shuffle import shuffle_batch  # noqa: F401
from ....layers.detection_box import float_input
from ....layers.detection_nms import nms as _nms
from ....layers.helper import LayerHelper
from ....layers.partial_columns import partial_concat, partial_sum  # noqa: F401
from ....layers.pyramid_hash import search_pyramid_hash  # noqa: F401
from ....layers.rank_attention import rank_attention  # noqa: F401
from ....layers.text_matching import match_matrix_tensor, sequence_topk_avg_pooling, var_conv_2d  # noqa: F401
from ....layers.tree_conv import tree_conv  # noqa: F401
from ....layers.tdm import tdm_child, tdm_sampler  # noqa: F401

__all__ = [
    "fused_elemwise_activation",
    "fused_embedding_seq_pool",
    "multiclass_nms2",
    "shuffle_batch",
    "partial_concat",
    "partial_sum",
    "tdm_child",
    "tdm_sampler",
    "rank_attention",
    "match_matrix_tensor",
    "var_conv_2d",
    "sequence_topk_avg_pooling",
    "tree_conv",
    "search_pyramid_hash",
]

_BINARY = {"elementwise_add": layers.elementwise_add, "elementwise_mul": layers.elementwise_mul}


def _unary(name, scale):
    if name == "scale":
        return lambda v: layers.scale(v, scale)
    fn = getattr(layers, name, None) if name not in _BINARY else None
    if fn is None or not callable(fn):
        raise ValueError(
            f"fused_elemwise_activation: '{name}' is not a unary functor (scale or an activation "
            f"such as relu, tanh, sigmoid)"
        )
    return fn


def fused_elemwise_activation(x, y, functor_list, axis=-1, scale=0.0, save_intermediate_out=True):
    """[binary, unary]: Out = binary(x, unary(y)); [unary, binary]: Out = unary(binary(x, y)).
    binary is elementwise_add or elementwise_mul (y broadcast from ``axis``), unary is scale (by
    ``scale``) or an activation. A string "a,b" is split at the comma."""
    if isinstance(functor_list, str):
        functor_list = functor_list.split(",")
    if not isinstance(functor_list, list) or len(functor_list) != 2:
        raise ValueError("functor_list should be a list of str, and the length should be 2.")
    outer, inner = functor_list
    if outer in _BINARY:
        return _BINARY[outer](x, _unary(inner, scale)(y), axis=axis)
    if inner not in _BINARY:
        raise ValueError(f"fused_elemwise_activation: functor_list {functor_list} needs one of {sorted(_BINARY)}")
    return _unary(outer, scale)(_BINARY[inner](x, y, axis=axis))


def fused_embedding_seq_pool(
    input, size, is_sparse=False, padding_idx=None, combiner="sum", param_attr=None, dtype="float32"
):
    """Per sequence of the LoD ids ``input``, the sum of its rows of a [size[0], size[1]] table
    (``padding_idx`` rows count as zeros): Fluid's fused_embedding_seq_pool op (ops/sequence_fused.py),
    its parameter named as Fluid's layer names it. Fluid's op knows only combiner 'sum'."""
    if combiner != "sum":
        raise ValueError(f"fused_embedding_seq_pool: combiner must be 'sum' (Fluid's only one), got {combiner!r}")
    helper = LayerHelper("fused_embedding_seq_pool", param_attr=param_attr)
    w = helper.create_parameter(param_attr, list(size), dtype)
    out = helper.create_variable_for_type_inference(dtype)
    padding_idx = -1 if padding_idx is None else padding_idx if padding_idx >= 0 else size[0] + padding_idx
    helper.append_op(
        "fused_embedding_seq_pool",
        {"Ids": [input], "W": [w]},
        {"Out": [out]},
        {"is_sparse": is_sparse, "combiner": combiner, "padding_idx": padding_idx},
    )
    return out


def multiclass_nms2(
    bboxes,
    scores,
    score_threshold,
    nms_top_k,
    keep_top_k,
    nms_threshold=0.3,
    normalized=True,
    nms_eta=1.0,
    background_label=0,
    return_index=False,
    name=None,
):
    """fluid.layers.multiclass_nms; with ``return_index`` also each kept box's index in the
    input (Index [No, 1] int32)."""
    float_input("multiclass_nms2", "bboxes", bboxes)
    float_input("multiclass_nms2", "scores", scores)
    if not isinstance(return_index, bool):
        raise ArgumentTypeError(f"multiclass_nms2: return_index must be a bool, got {return_index!r}")
    attrs = {
        "background_label": int(background_label),
        "score_threshold": float(score_threshold),
        "nms_top_k": int(nms_top_k),
        "nms_threshold": float(nms_threshold),
        "nms_eta": float(nms_eta),
        "keep_top_k": int(keep_top_k),
        "normalized": bool(normalized),
    }
    return _nms(LayerHelper("multiclass_nms2", name=name), "multiclass_nms2", bboxes, scores, attrs, return_index)
