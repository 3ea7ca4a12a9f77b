"""``paddle.fluid.input`` of Fluid 1.8: ``fluid.embedding``, whose ids need no trailing 1 (the
``lookup_table_v2`` op: Out is Ids' shape plus the embedding dim), where ``fluid.layers.embedding``
(``lookup_table``) drops a trailing 1 of Ids."""
from ..layers.embedding import lookup

__all__ = ["embedding"]


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype="float32"):
    """Rows of a [vocab_size, emb_dim] table for int64 ids of any shape: Out is [*ids.shape, emb_dim];
    padding_idx rows are zeros; is_sparse as layers.embedding."""
    return lookup("lookup_table_v2", input, size, is_sparse, is_distributed, padding_idx, param_attr, dtype)
