"""``paddle.nn.functional.scaled_dot_product_attention`` (``sparse_attention`` refused in one line) and the
attention ``MultiHeadAttention`` shares, the layer functions' (pe_cli/layers/attention.py): a bool or int mask keeps where it is
True / 1 (elsewhere -1e9 is added to the scores), a float mask is added as it is."""

from ... import tensor_create as TC
from ... import tensor_manip as TM
from ....base.errors import unsupported
from ....layers.attention import attend

__all__ = ["scaled_dot_product_attention", "sparse_attention"]

# Paddle 2.6.2 registers its sparse_attention op only in CUDA >= 11.3 builds; its CPU build refuses it too.
sparse_attention = unsupported(
    "paddle.nn.functional.sparse_attention",
    "Paddle 2.6.2 has its op only in CUDA >= 11.3 builds (its CPU build refuses it too); pe has no kernel for it",
)


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, training=True, name=None
):
    """Attention over [batch, seq, heads, head_dim] inputs; ``is_causal`` masks later positions
    (the sequence length must be known)."""
    q, k, v = (TM.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))
    mask = causal_mask(q.shape[2], k.shape[2], query.dtype) if is_causal else attn_mask
    out, _ = attend(q, k, v, mask, dropout_p, not training)
    return TM.transpose(out, [0, 2, 1, 3])


def causal_mask(length_q, length_k, dtype):
    """[length_q, length_k] scores: 0 on and below the diagonal, -inf above."""
    if length_q in (None, -1) or length_k in (None, -1):
        raise ValueError("scaled_dot_product_attention(is_causal=True): the sequence lengths must be known")
    return TC.triu(TC.full([length_q, length_k], float("-inf"), dtype), 1)
