"""``paddle.fluid.input`` of Fluid 1.8: ``fluid.embedding``, whose ids need no trailing 1 (the
``lookup_table_v2`` op: Out is Ids' shape plus the embedding dim), where ``fluid.layers.embedding``
(``lookup_table``) drops a trailing 1 of Ids."""

from ..layers.embedding import check_ids_and_dtype, lookup
from ..layers.helper import LayerHelper

__all__ = ["embedding", "one_hot"]


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None, dtype="float32"):
    """Rows of a [vocab_size, emb_dim] table for int64 ids of any shape: Out is [*ids.shape, emb_dim];
    padding_idx rows are zeros; is_sparse as layers.embedding."""
    check_ids_and_dtype(input, dtype, "fluid.embedding")
    return lookup("lookup_table_v2", input, size, is_sparse, is_distributed, padding_idx, param_attr, dtype)


def one_hot(input, depth, allow_out_of_range=False):
    """Fluid 1.8's ``fluid.one_hot`` (the ``one_hot_v2`` op): int ids of any shape S -> float32
    S + [depth], without taking a trailing 1 off S (``layers.one_hot`` wants ids [N, 1]). Ids
    outside [0, depth) are an error, or all-zero rows with ``allow_out_of_range``. No gradient."""
    if not hasattr(input, "block"):
        raise TypeError(f"The type of 'input' in one_hot_v2 must be Variable, but received {type(input)}")
    helper = LayerHelper("one_hot_v2", input=input)
    out = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    inputs = {"X": [input]}
    if hasattr(depth, "block"):  # a Variable: the depth comes at run time (depth_tensor)
        inputs["depth_tensor"], depth = [depth], -1
    helper.append_op("one_hot_v2", inputs, {"Out": [out]}, {"depth": depth, "allow_out_of_range": allow_out_of_range})
    return out
