"""The meta rules of the ops on row-sparse values (ops/selected_rows.py): X must be a SelectedRows
(base/selected_rows.py; ``sparse_input``, the one refusal of a dense X, which the CUDA kernels make too). A
SelectedRows output is described as every SelectedRows describes itself (its ``shape`` and ``dtype``): the dense
shape [height, ...] and the values' dtype; its rows are values, so each variant is ``fresh`` and the out-kernel
(kernels/cpu/selected_rows.py) hands over the SelectedRows it makes: merge_selected_rows' Out of X's height,
split_selected_rows' Out a SelectedRows of height height_sections[i] each; get_tensor_from_selected_rows' Out is
dense, [K, ...] with K (X's count of rows) -1, a length its values give where a planned step sees only X's
dense shape."""

import numpy as np

from ..base.errors import PeError
from ..base.selected_rows import SelectedRows
from .structured import Meta


def sparse_input(ins, op):
    """X of an op that reads only a row-sparse value."""
    x = ins["X"]
    if not isinstance(x, SelectedRows):
        raise PeError(
            f"{op}: X must be row-sparse (SelectedRows: the gradient of embedding(is_sparse=True)), "
            f"got a dense array of shape {list(x.shape)}"
        )
    return x


def merge_selected_rows_meta(attrs, ins, facts):
    """merge_selected_rows: Out a SelectedRows of X's dense shape and dtype; "merge", fresh."""
    x = sparse_input(ins, "merge_selected_rows")
    return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "merge", fresh=True)


def get_tensor_from_selected_rows_meta(attrs, ins, facts):
    """get_tensor_from_selected_rows: Out, X's values [-1, ...] in their dtype; "values", fresh."""
    x = sparse_input(ins, "get_tensor_from_selected_rows")
    return Meta({"Out": ((-1, *tuple(x.shape)[1:]), np.dtype(x.dtype))}, "values", fresh=True)


def split_selected_rows_meta(attrs, ins, facts):
    """split_selected_rows: Out a SelectedRows per entry of height_sections, [that height, ...] in X's dtype;
    "split", fresh."""
    x = sparse_input(ins, "split_selected_rows")
    dtype, width = np.dtype(x.dtype), tuple(x.shape)[1:]
    return Meta({"Out": [((int(h), *width), dtype) for h in attrs["height_sections"]]}, "split", fresh=True)
