"""Fluid 1.8's ``contrib.layers.rank_attention`` (ops/rank_attention.py)."""

from .helper import LayerHelper

__all__ = ["rank_attention"]


def rank_attention(input, rank_offset, rank_param_shape, rank_param_attr, max_rank=3):
    """Per instance, the sum over its (rank, row) pairs of input[row] @ the rank parameter's block
    for (its rank, the pair's rank); rank_param_shape is [input width * max_rank^2, output width]."""
    helper = LayerHelper("rank_attention")
    dtype = input.dtype
    assert input.shape[1] * max_rank * max_rank == rank_param_shape[0]
    rank_param = helper.create_parameter(rank_param_attr, list(rank_param_shape), dtype)
    rank_param.stop_gradient = False
    out = helper.create_variable_for_type_inference(dtype)
    input_help = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    ins_rank = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(
        "rank_attention",
        {"X": [input], "RankOffset": [rank_offset], "RankParam": [rank_param]},
        {"Out": [out], "InputHelp": [input_help], "InsRank": [ins_rank]},
        {"MaxRank": max_rank},
    )
    return out
