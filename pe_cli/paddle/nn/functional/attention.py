"""``paddle.nn.functional.scaled_dot_product_attention`` and the attention-mask conversion that
``MultiHeadAttention`` shares: a bool or int mask keeps where it is True / 1 (elsewhere -1e9 is
added to the scores), a float mask is added as it is."""
from ... import tensor_create as TC
from ... import tensor_manip as TM
from ... import tensor_math as TMa
from .activation import softmax
from .dropout import dropout

__all__ = ["scaled_dot_product_attention"]


def additive_mask(attn_mask, dtype):
    """The mask as scores to add: (mask - 1) * 1e9 for bool/int masks, the float mask as is."""
    if attn_mask is None or attn_mask.dtype == dtype:
        return attn_mask
    if attn_mask.dtype in ("bool", "int32", "int64", "int8", "uint8"):
        return TMa.scale(TM.cast(attn_mask, dtype), 1e9, -1e9)
    return TM.cast(attn_mask, dtype)


def attend(q, k, v, attn_mask, dropout_p, training):
    """softmax(q k^T / sqrt(d) + mask) (dropped out) @ v on [batch, heads, seq, head_dim]; (out, weights)."""
    product = TMa.matmul(TMa.scale(q, float(q.shape[-1]) ** -0.5), k, transpose_y=True)
    mask = additive_mask(attn_mask, product.dtype)
    if mask is not None:
        product = TMa.add(product, mask)
    weights = softmax(product)
    if dropout_p:
        weights = dropout(weights, dropout_p, training=training, mode="upscale_in_train")
    return TMa.matmul(weights, v), weights


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, training=True,
                                 name=None):
    """Attention over [batch, seq, heads, head_dim] inputs; ``is_causal`` masks later positions
    (the sequence length must be known)."""
    q, k, v = (TM.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))
    mask = causal_mask(q.shape[2], k.shape[2], query.dtype) if is_causal else attn_mask
    out, _ = attend(q, k, v, mask, dropout_p, training)
    return TM.transpose(out, [0, 2, 1, 3])


def causal_mask(length_q, length_k, dtype):
    """[length_q, length_k] scores: 0 on and below the diagonal, -inf above."""
    if length_q in (None, -1) or length_k in (None, -1):
        raise ValueError("scaled_dot_product_attention(is_causal=True): the sequence lengths must be known")
    return TC.triu(TC.full([length_q, length_k], float("-inf"), dtype), 1)
