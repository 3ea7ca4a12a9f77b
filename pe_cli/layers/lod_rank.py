"""Fluid's layers for a dynamic RNN written with While (pe_cli/ops/lod_rank.py): ``lod_rank_table``,
``max_sequence_len``, ``lod_tensor_to_array``, ``array_to_lod_tensor``, ``shrink_memory``,
``reorder_lod_tensor_by_rank``."""

from ..base.dtypes import VarType
from ..framework import unique_name
from ..framework.variable import Variable
from .helper import LayerHelper
from .checks import check_type

__all__ = [
    "lod_rank_table",
    "max_sequence_len",
    "lod_tensor_to_array",
    "array_to_lod_tensor",
    "shrink_memory",
    "reorder_lod_tensor_by_rank",
]


def _one(op_type, inputs, dtype, attrs=None, stop_gradient=False, lod_level=0):
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=stop_gradient)
    helper.append_op(op_type, inputs, {"Out": [out]}, attrs or {})
    out.lod_level = lod_level or out.lod_level
    return out


def _variables(value, what, layer):
    """Fluid's check of an argument that is a Variable or a list of them: a TypeError otherwise."""
    check_type(value, what, (Variable, list), layer)
    for i, item in enumerate(value if isinstance(value, list) else ()):
        check_type(item, f"{what}[{i}]", Variable, layer)
    return value if isinstance(value, list) else [value]


def lod_rank_table(x, level=0):
    """The sequences of ``x``'s LoD level ``level``, longest first (a LOD_RANK_TABLE variable)."""
    xs = _variables(x, "x", "lod_rank_table")
    helper = LayerHelper("lod_rank_table")
    table = helper.create_variable(
        name=unique_name.generate("lod_rank_table"), type=VarType.LOD_RANK_TABLE, dtype="int64", stop_gradient=True
    )
    helper.append_op("lod_rank_table", {"X": xs}, {"Out": [table]}, {"level": level})
    return table


def max_sequence_len(rank_table):
    return _one("max_sequence_len", {"RankTable": [rank_table]}, "int64", stop_gradient=True)


def lod_tensor_to_array(x, table):
    """A tensor array of time steps: item t holds the t-th rows of the sequences longer than t."""
    xs, tables = _variables(x, "x", "lod_tensor_to_array"), _variables(table, "table", "lod_tensor_to_array")
    helper = LayerHelper("lod_tensor_to_array")
    array = helper.create_variable(
        name=unique_name.generate("lod_tensor_to_array"), type=VarType.LOD_TENSOR_ARRAY, dtype=xs[0].dtype
    )
    helper.append_op("lod_tensor_to_array", {"X": xs, "RankTable": tables}, {"Out": [array]})
    return array


def array_to_lod_tensor(x, table):
    """The inverse of lod_tensor_to_array: a LoD tensor with the table's sequences."""
    xs, tables = _variables(x, "x", "array_to_lod_tensor"), _variables(table, "table", "array_to_lod_tensor")
    return _one("array_to_lod_tensor", {"X": xs, "RankTable": tables}, xs[0].dtype)


def shrink_memory(x, i, table):
    """The first rows of ``x``, one per sequence longer than ``i``."""
    check_type(x, "x", Variable, "shrink_memory")
    check_type(i, "i", Variable, "shrink_memory")
    check_type(table, "table", Variable, "shrink_memory")
    return _one("shrink_rnn_memory", {"X": [x], "I": [i], "RankTable": [table]}, x.dtype)


def reorder_lod_tensor_by_rank(x, rank_table):
    """``x``'s rows (one per sequence) in the table's order."""
    check_type(x, "x", Variable, "reorder_lod_tensor_by_rank")
    check_type(rank_table, "rank_table", Variable, "reorder_lod_tensor_by_rank")
    if rank_table.type != VarType.LOD_RANK_TABLE:
        raise TypeError(
            "reorder_lod_tensor_by_rank: the type of rank_table should be LOD_RANK_TABLE, "
            f"'{rank_table.name}' is a {rank_table.type}"
        )
    return _one("reorder_lod_tensor_by_rank", {"X": [x], "RankTable": [rank_table]}, x.dtype)
