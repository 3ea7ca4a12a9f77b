"""Fluid's layers for a dynamic RNN written with While (pe_cli/ops/lod_rank.py): ``lod_rank_table``,
``max_sequence_len``, ``lod_tensor_to_array``, ``array_to_lod_tensor``, ``shrink_memory``,
``reorder_lod_tensor_by_rank``."""
from .helper import LayerHelper

__all__ = ["lod_rank_table", "max_sequence_len", "lod_tensor_to_array", "array_to_lod_tensor", "shrink_memory",
           "reorder_lod_tensor_by_rank"]


def _one(op_type, inputs, dtype, attrs=None, stop_gradient=False, lod_level=0):
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=stop_gradient)
    helper.append_op(op_type, inputs, {"Out": [out]}, attrs or {})
    out.lod_level = lod_level or out.lod_level
    return out


def lod_rank_table(x, level=0):
    """The sequences of ``x``'s LoD level ``level``, longest first."""
    return _one("lod_rank_table", {"X": [x]}, "int64", {"level": level}, stop_gradient=True)


def max_sequence_len(rank_table):
    return _one("max_sequence_len", {"RankTable": [rank_table]}, "int64", stop_gradient=True)


def lod_tensor_to_array(x, table):
    """A tensor array of time steps: item t holds the t-th rows of the sequences longer than t."""
    return _one("lod_tensor_to_array", {"X": [x], "RankTable": [table]}, x.dtype)


def array_to_lod_tensor(x, table):
    """The inverse of lod_tensor_to_array: a LoD tensor with the table's sequences."""
    return _one("array_to_lod_tensor", {"X": [x], "RankTable": [table]}, x.dtype, lod_level=1)


def shrink_memory(x, i, table):
    """The first rows of ``x``, one per sequence longer than ``i``."""
    return _one("shrink_rnn_memory", {"X": [x], "I": [i], "RankTable": [table]}, x.dtype)


def reorder_lod_tensor_by_rank(x, rank_table):
    """``x``'s rows (one per sequence) in the table's order."""
    return _one("reorder_lod_tensor_by_rank", {"X": [x], "RankTable": [rank_table]}, x.dtype)
