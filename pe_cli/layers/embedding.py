"""Embedding layers: Fluid 1.8's ``layers.embedding`` (lookup_table) and ``lookup``, which
fluid.embedding (lookup_table_v2) shares."""

__all__ = ["embedding"]
from ..base.errors import PeError
from .checks import check_dtype, check_variable_and_dtype
from .helper import LayerHelper


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None, dtype="float32"):
    """Looks up rows of a [vocab_size, emb_dim] table for int64 ids; padding_idx rows are zeros.
    is_sparse=True makes the table's gradient row-sparse (a SelectedRows of the ids looked up), which
    sgd, adagrad and lazy adam apply to those rows only (docs/SPARSE.md)."""
    check_ids_and_dtype(input, dtype, "embedding")
    return lookup("lookup_table", input, size, is_sparse, is_distributed, padding_idx, param_attr, dtype)


def check_ids_and_dtype(input, dtype, layer):
    """Fluid 1.8's checks of its two embeddings: int64 ids in a Variable, a float table."""
    check_variable_and_dtype(input, "input", ("int64",), layer)
    check_dtype(dtype, "dtype", ("float16", "float32", "float64"), layer)


def lookup(op_type, input, size, is_sparse, is_distributed, padding_idx, param_attr, dtype):
    """An embedding by ``op_type``: lookup_table (layers.embedding: Ids [..., 1] -> [..., D]) or
    lookup_table_v2 (fluid.embedding: Ids [...] -> [..., D])."""
    helper = LayerHelper("embedding", input=input, param_attr=param_attr)
    size = list(size)
    if len(size) != 2:
        raise PeError(f"embedding layer '{helper.name}': size must be [vocab_size, emb_dim], got {size!r}")
    w = helper.create_parameter(param_attr, size, dtype)
    out = helper.create_variable_for_type_inference(dtype)
    padding_idx = -1 if padding_idx is None else padding_idx if padding_idx >= 0 else size[0] + padding_idx
    helper.append_op(
        op_type,
        {"Ids": [input], "W": [w]},
        {"Out": [out]},
        {
            "is_sparse": is_sparse,
            "is_distributed": is_distributed,
            "remote_prefetch": is_sparse and not is_distributed,
            "padding_idx": padding_idx,
        },
    )
    return out
