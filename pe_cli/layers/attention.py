"""Attention and the Transformer encoder as layer functions (what a model file's ``multi_head_attention``
and ``transformer_encoder`` layers build), and the pieces ``paddle.nn``'s MultiHeadAttention and
Transformer layers build with: one implementation of attention (``attend``) and of the residual
block (``residual``), shared by both.

``transformer_encoder`` is ``paddle.nn.TransformerEncoder(TransformerEncoderLayer(d_model, nhead,
dim_feedforward, dropout, activation, attn_dropout, act_dropout, normalize_before), num_layers)`` over a
[batch, seq, d_model] input: per layer, self-attention (q/k/v/out projections, ``nhead`` heads), then a
feed-forward block (d_model -> dim_feedforward -> d_model), each with a residual connection, dropout and
a layer norm (after the residual, or before the block with ``normalize_before``). Parameters are named
after the layer: ``<name>.layers.<i>.self_attn.q_proj.w_0``, ``...linear1.w_0``, ``...norm1.w_0``."""

import copy

from ..base.errors import ArgumentValueError
from ..training.param_attr import ParamAttr
from .activation import softmax
from .dropout import dropout as _dropout
from .elementwise import elementwise_add, scale
from .helper import single
from .linalg import fc
from .manipulation import cast, reshape, shape, slice, transpose, unsqueeze
from .normalization import layer_norm
from .sequence_rows import sequence_mask

__all__ = ["multi_head_attention", "transformer_encoder"]

_INT_MASKS = ("bool", "int32", "int64", "int8", "uint8")


def additive_mask(attn_mask, dtype):
    """The mask as scores to add: (mask - 1) * 1e9 for bool/int masks (keep where True / 1), a float
    mask as it is."""
    if attn_mask is None or attn_mask.dtype == dtype:
        return attn_mask
    if attn_mask.dtype in _INT_MASKS:
        return scale(cast(attn_mask, dtype), 1e9, -1e9)
    return cast(attn_mask, dtype)


def _matmul(x, y, transpose_y=False):
    return single("matmul_v2", x, {"X": [x], "Y": [y]}, {"trans_x": False, "trans_y": bool(transpose_y)})


def attend(q, k, v, attn_mask, dropout_p, is_test):
    """softmax(q k^T / sqrt(d) + mask) (dropped out, upscaled in training) @ v on [batch, heads, seq,
    head_dim]; (out, weights)."""
    product = _matmul(scale(q, float(q.shape[-1]) ** -0.5), k, transpose_y=True)
    mask = additive_mask(attn_mask, product.dtype)
    if mask is not None:
        product = elementwise_add(product, mask)
    weights = softmax(product)
    if dropout_p:
        weights = _dropout(weights, float(dropout_p), is_test=is_test, dropout_implementation="upscale_in_train")
    return _matmul(weights, v), weights


def residual(x, sub, dropout_fn, norm, normalize_before):
    """Post-norm: norm(x + dropout(sub(x))); pre-norm: x + dropout(sub(norm(x)))."""
    out = elementwise_add(x, dropout_fn(sub(norm(x) if normalize_before else x)))
    return out if normalize_before else norm(out)


def _attr(attr, path, initializer=True):
    """The ParamAttr of the sublayer at ``path`` (``layers.0.linear1``): a named attr gets the path
    appended (two layers naming the same attr share all their parameters); ``initializer=False``
    keeps only the name (layer norms start at 1 and 0 whatever the projections' initializer)."""
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return False
    if not initializer:
        return ParamAttr(name=f"{attr.name}.{path}") if attr.name else None
    attr = copy.copy(attr)
    if attr.name:
        attr.name = f"{attr.name}.{path}"
    return attr


def _linear(x, size, top, path, param_attr, bias_attr, act=None):
    return fc(
        x,
        size,
        num_flatten_dims=len(x.shape) - 1,
        act=act,
        name=f"{top}.{path}",
        param_attr=_attr(param_attr, path),
        bias_attr=_attr(bias_attr, path),
    )


def _check(layer, input, d_model, nhead):
    if input.shape is None or len(input.shape) != 3:
        raise ArgumentValueError(
            f"{layer}: input '{input.name}' must be [batch, seq, d_model], not {list(input.shape or [])}"
        )
    if input.shape[-1] != d_model:
        raise ArgumentValueError(
            f"{layer}: input '{input.name}' has {input.shape[-1]} features a step, "
            f"d_model is {d_model}: project it first (an fc with num_flatten_dims: 2)"
        )
    if nhead < 1 or d_model % nhead:
        raise ArgumentValueError(f"{layer}: d_model={d_model} is not divisible by nhead={nhead}")


def _attention(queries, keys, values, num_heads, dropout, attn_mask, param_attr, bias_attr, top, path):
    embed_dim = queries.shape[-1]

    def heads(x, proj):
        x = _linear(x, embed_dim, top, f"{path}{proj}", param_attr, bias_attr)
        return transpose(reshape(x, [0, 0, num_heads, embed_dim // num_heads]), [0, 2, 1, 3])

    out, weights = attend(
        heads(queries, "q_proj"), heads(keys, "k_proj"), heads(values, "v_proj"), attn_mask, dropout, False
    )
    out = reshape(transpose(out, [0, 2, 1, 3]), [0, 0, embed_dim])
    return _linear(out, embed_dim, top, f"{path}out_proj", param_attr, bias_attr), weights


def multi_head_attention(
    queries,
    keys=None,
    values=None,
    num_heads=1,
    dropout=0.0,
    attn_mask=None,
    param_attr=None,
    bias_attr=None,
    name=None,
):
    """``paddle.nn.MultiHeadAttention(embed_dim, num_heads, dropout)(queries, keys, values, attn_mask)``:
    [batch, seq, embed_dim] in and out; keys and values default to the queries (self-attention), as Paddle's.
    Parameters: ``<name>.q_proj.w_0``, ``k_proj``, ``v_proj``, ``out_proj``."""
    _check("multi_head_attention", queries, queries.shape[-1] if queries.shape else None, num_heads)
    keys = queries if keys is None else keys
    values = queries if values is None else values
    return _attention(
        queries, keys, values, num_heads, dropout, attn_mask, param_attr, bias_attr, name or "multi_head_attention", ""
    )[0]


def padding_mask(length, input):
    """[batch, 1, 1, seq] scores to add: 0 at the positions below each sample's length, -1e9 after."""
    seq = input.shape[1]
    maxlen = seq if seq not in (None, -1) else slice(shape(input), axes=[0], starts=[1], ends=[2])
    keep = sequence_mask(reshape(length, [-1]), maxlen=maxlen, dtype=input.dtype)
    mask = scale(unsqueeze(keep, [1, 2]), 1e9, -1e9)
    mask.stop_gradient = True  # made of the lengths: no gradient flows into it (nor its ops' backward)
    return mask


def transformer_encoder(
    input,
    num_layers,
    d_model,
    nhead,
    dim_feedforward,
    dropout=0.1,
    activation="relu",
    attn_dropout=None,
    act_dropout=None,
    normalize_before=False,
    src_mask=None,
    param_attr=None,
    bias_attr=None,
    layer_norm_eps=1e-05,
    name=None,
    *,
    length=None,
):
    """``num_layers`` Transformer encoder layers (paddle.nn.TransformerEncoderLayer's arguments) over a
    [batch, seq, d_model] input; ``src_mask`` (broadcast to [batch, nhead, seq, seq]) is added to the
    attention scores, a bool/int one keeping where True; ``length`` (pe's: int [batch] or [batch, 1]),
    each sample's length, masks the padding after it (no position attends to it). Returns
    [batch, seq, d_model]."""
    _check("transformer_encoder", input, d_model, nhead)
    if length is not None:
        pad = padding_mask(length, input)
        src_mask = pad if src_mask is None else elementwise_add(additive_mask(src_mask, input.dtype), pad)
    if num_layers < 1:
        raise ArgumentValueError(f"transformer_encoder: num_layers={num_layers} must be at least 1")
    x = input
    for i in range(num_layers):
        x = encoder_layer(
            x,
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            attn_dropout,
            act_dropout,
            normalize_before,
            src_mask,
            param_attr,
            bias_attr,
            layer_norm_eps,
            name or "transformer_encoder",
            f"layers.{i}.",
        )
    return x


def encoder_layer(
    x,
    d_model,
    nhead,
    dim_feedforward,
    dropout,
    activation,
    attn_dropout,
    act_dropout,
    normalize_before,
    src_mask,
    param_attr,
    bias_attr,
    layer_norm_eps,
    name,
    path,
):
    """One TransformerEncoderLayer over x (src_mask already additive); its parameters are named
    ``<name>.<path>self_attn.q_proj.w_0`` (path ``layers.0.`` inside an encoder, empty alone)."""
    attn_dropout = dropout if attn_dropout is None else attn_dropout
    act_dropout = dropout if act_dropout is None else act_dropout

    def drop(p):
        return lambda x: _dropout(x, float(p), dropout_implementation="upscale_in_train") if p else x

    def norm(x, k):
        return layer_norm(
            x,
            begin_norm_axis=len(x.shape) - 1,
            epsilon=layer_norm_eps,
            name=f"{name}.{path}norm{k}",
            param_attr=_attr(param_attr, f"{path}norm{k}", False),
            bias_attr=_attr(bias_attr, f"{path}norm{k}", False),
        )

    def attention(x):
        return _attention(x, x, x, nhead, attn_dropout, src_mask, param_attr, bias_attr, name, f"{path}self_attn.")[0]

    def feed_forward(x):
        h = _linear(x, dim_feedforward, name, f"{path}linear1", param_attr, bias_attr, act=activation)
        return _linear(drop(act_dropout)(h), d_model, name, f"{path}linear2", param_attr, bias_attr)

    x = residual(x, attention, drop(dropout), lambda x: norm(x, 1), normalize_before)
    return residual(x, feed_forward, drop(dropout), lambda x: norm(x, 2), normalize_before)
