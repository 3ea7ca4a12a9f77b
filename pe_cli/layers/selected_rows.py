"""Layers over row-sparse (SelectedRows) values: merge_selected_rows, get_tensor_from_selected_rows
(the ops of ops/selected_rows.py)."""

__all__ = ["merge_selected_rows", "get_tensor_from_selected_rows"]
from ..base.dtypes import VarType
from ..base.errors import ArgumentTypeError
from ..framework.variable import Variable
from .checks import check_type
from .helper import LayerHelper


def merge_selected_rows(x, name=None):
    """A row-sparse x (the gradient of embedding(is_sparse=True)) with each row once, ascending, the
    values of a repeated row summed (docs/SPARSE.md)."""
    helper = LayerHelper("merge_selected_rows", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("merge_selected_rows", {"X": [x]}, {"Out": [out]})
    return out


def get_tensor_from_selected_rows(x, name=None):
    """The values of a row-sparse x: a dense [rows listed, ...] tensor. As Fluid's: x not a Variable,
    or a dense one, is a TypeError."""
    check_type(x, "x", Variable, "get_tensor_from_selected_rows")
    if x.type != VarType.SELECTED_ROWS:
        raise ArgumentTypeError(
            f"get_tensor_from_selected_rows: x '{x.name}' must be row-sparse (SelectedRows: "
            f"the gradient of embedding(is_sparse=True)); it is a dense variable"
        )
    helper = LayerHelper("get_tensor_from_selected_rows", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("get_tensor_from_selected_rows", {"X": [x]}, {"Out": [out]})
    return out
