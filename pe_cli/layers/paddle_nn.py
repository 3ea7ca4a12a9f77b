"""paddle.nn's layer classes by their 2.x names, as layer functions a model file names as layer types
(``{type: TransformerEncoderLayer, src: words, d_model: 32, nhead: 4, dim_feedforward: 64}``): the
class's constructor arguments and its ``forward``'s by Paddle 2.x's names, one call building both.
They are not Fluid names, so ``pe_cli.layers`` (fluid.layers) does not export them; the YAML layer
types add ``__all__`` (pe_cli/config/registries.py). Each lowers to the Fluid layer function that
builds the same ops (fc, lookup_table_v2's embedding, layer_norm, dropout, and attention.py's
attention and encoder layer: one implementation), with Paddle's parameter names below the layer's:
``<name>.w_0``; ``<name>.self_attn.q_proj.w_0``; ``<name>.layers.1.linear1.w_0``.

``variable_arguments`` marks the forward arguments that take a feed or layer beyond the model file's
usual ones (pe_cli/config/model.py, TENSOR_ARGS)."""

import copy

from ..base.errors import ArgumentValueError
from ..training.param_attr import ParamAttr
from . import attention as A
from .dropout import dropout as _dropout
from .elementwise import elementwise_add
from .embedding import lookup
from .linalg import fc
from .normalization import layer_norm

__all__ = [
    "Linear",
    "Embedding",
    "LayerNorm",
    "Dropout",
    "MultiHeadAttention",
    "TransformerEncoderLayer",
    "TransformerEncoder",
]


def _variables(*names):
    def mark(fn):
        fn.variable_arguments = frozenset(names)
        return fn

    return mark


def _named(attr, name):
    """``attr`` (a ParamAttr, name, None or False) named ``name`` unless it has a name of its own."""
    attr = ParamAttr._to_attr(attr)
    if attr is False or attr.name:
        return attr
    attr = copy.copy(attr)
    attr.name = name
    return attr


def _last_dim(layer, what, var, size):
    if var.shape is None or not var.shape or var.shape[-1] != size:
        raise ArgumentValueError(
            f"{layer}: {what}={size}, but '{var.name}' has shape {list(var.shape or [])} "
            f"(its last dimension is the features)"
        )


@_variables("input")
def Linear(input, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
    """``paddle.nn.Linear(in_features, out_features)(input)``: input [..., in_features] @ weight
    [in_features, out_features] + bias over the last dimension (an fc over the leading dims)."""
    _last_dim("Linear", "in_features", input, in_features)
    return fc(
        input,
        out_features,
        num_flatten_dims=len(input.shape) - 1,
        param_attr=weight_attr,
        bias_attr=bias_attr,
        name=name,
    )


@_variables("x")
def Embedding(x, num_embeddings, embedding_dim, padding_idx=None, sparse=False, weight_attr=None, name=None):
    """``paddle.nn.Embedding(num_embeddings, embedding_dim)(x)``: int64 ids [...] -> [..., embedding_dim]
    (lookup_table_v2: no trailing 1 dropped); padding_idx's rows are zeros and get no gradient."""
    return lookup(
        "lookup_table_v2",
        x,
        [num_embeddings, embedding_dim],
        sparse,
        False,
        padding_idx,
        _named(weight_attr, f"{name}.w_0") if name else weight_attr,
        "float32",
    )


@_variables("input")
def LayerNorm(input, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None, name=None):
    """``paddle.nn.LayerNorm(normalized_shape)(input)``: normalized over the trailing dims
    ``normalized_shape`` (an int: the last one); weight_attr/bias_attr False: no scale/shift."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    dims = list(input.shape or [])
    if not shape or dims[len(dims) - len(shape) :] != shape:
        raise ArgumentValueError(
            f"LayerNorm: normalized_shape={shape} is not the trailing dims of '{input.name}' {dims}"
        )
    return layer_norm(
        input,
        scale=weight_attr is not False,
        shift=bias_attr is not False,
        begin_norm_axis=len(dims) - len(shape),
        epsilon=epsilon,
        param_attr=None if weight_attr is False else weight_attr,
        bias_attr=None if bias_attr is False else bias_attr,
        name=name,
    )


@_variables("input")
def Dropout(input, p=0.5, axis=None, mode="upscale_in_train", name=None):
    """``paddle.nn.Dropout(p, mode=...)(input)``: zeroes elements with probability p while training
    (mode upscale_in_train scales the kept ones by 1/(1-p); downscale_in_infer scales at inference)."""
    if axis is not None:
        raise ArgumentValueError(
            "Dropout: axis (one mask shared along the other dims) is not supported by pe; remove it"
        )
    modes = {"upscale_in_train": "upscale_in_train", "downscale_in_infer": "downgrade_in_infer"}
    if mode not in modes:
        raise ArgumentValueError(f"Dropout: mode '{mode}' is not one of {', '.join(modes)}")
    return _dropout(input, float(p), name=name, dropout_implementation=modes[mode])


@_variables("query", "key", "value", "attn_mask")
def MultiHeadAttention(
    query,
    embed_dim,
    num_heads,
    dropout=0.0,
    kdim=None,
    vdim=None,
    need_weights=False,
    weight_attr=None,
    bias_attr=None,
    key=None,
    value=None,
    attn_mask=None,
    name=None,
):
    """``paddle.nn.MultiHeadAttention(embed_dim, num_heads, ...)(query, key, value, attn_mask)`` on
    [batch, seq, embed_dim]; key and value default to the query. need_weights: (out, weights), the
    attention weights [batch, num_heads, seq_q, seq_k] (refer to them as ``name[1]``)."""
    key = query if key is None else key
    value = query if value is None else value
    A._check("MultiHeadAttention", query, embed_dim, num_heads)
    _last_dim("MultiHeadAttention", "kdim", key, kdim or embed_dim)
    _last_dim("MultiHeadAttention", "vdim", value, vdim or embed_dim)
    out, weights = A._attention(
        query,
        key,
        value,
        num_heads,
        dropout,
        A.additive_mask(attn_mask, query.dtype),
        weight_attr,
        bias_attr,
        name or "multi_head_attention",
        "",
    )
    return (out, weights) if need_weights else out


def _mask(src, src_mask, length):
    """src_mask as scores to add, with the padding after each ``length`` masked."""
    mask = A.additive_mask(src_mask, src.dtype)
    if length is None:
        return mask
    pad = A.padding_mask(length, src)
    return pad if mask is None else elementwise_add(mask, pad)


@_variables("src", "src_mask")
def TransformerEncoderLayer(
    src,
    d_model,
    nhead,
    dim_feedforward,
    dropout=0.1,
    activation="relu",
    attn_dropout=None,
    act_dropout=None,
    normalize_before=False,
    weight_attr=None,
    bias_attr=None,
    layer_norm_eps=1e-05,
    src_mask=None,
    name=None,
    *,
    length=None,
):
    """``paddle.nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, ...)(src, src_mask)`` over
    [batch, seq, d_model]; ``length`` (pe's: int64 [batch] or [batch, 1]) masks each sample's padding."""
    A._check("TransformerEncoderLayer", src, d_model, nhead)
    return A.encoder_layer(
        src,
        d_model,
        nhead,
        dim_feedforward,
        dropout,
        activation,
        attn_dropout,
        act_dropout,
        normalize_before,
        _mask(src, src_mask, length),
        weight_attr,
        bias_attr,
        layer_norm_eps,
        name or "transformer_encoder_layer",
        "",
    )


_LAYER_ARGS = (
    "d_model",
    "nhead",
    "dim_feedforward",
    "dropout",
    "activation",
    "attn_dropout",
    "act_dropout",
    "normalize_before",
    "layer_norm_eps",
)


@_variables("src", "src_mask")
def TransformerEncoder(src, encoder_layer, num_layers, norm=None, src_mask=None, name=None, *, length=None):
    """``paddle.nn.TransformerEncoder(TransformerEncoderLayer(...), num_layers, norm)(src, src_mask)``:
    ``encoder_layer`` is the mapping of TransformerEncoderLayer's arguments (d_model, nhead,
    dim_feedforward, dropout, ...), repeated ``num_layers`` times (``<name>.layers.<i>.``); ``norm``,
    a mapping of LayerNorm's arguments ({} for the defaults), a last layer norm (``<name>.norm``)."""
    if not isinstance(encoder_layer, dict):
        raise ArgumentValueError(
            f"TransformerEncoder: encoder_layer must be a mapping of TransformerEncoderLayer's "
            f"arguments ({', '.join(_LAYER_ARGS)}), not {encoder_layer!r}"
        )
    unknown = sorted(set(encoder_layer) - set(_LAYER_ARGS) - {"type"})
    if unknown:
        raise ArgumentValueError(
            f"TransformerEncoder: encoder_layer has no argument '{unknown[0]}' (it takes {', '.join(_LAYER_ARGS)})"
        )
    if encoder_layer.get("type", "TransformerEncoderLayer") != "TransformerEncoderLayer":
        raise ArgumentValueError("TransformerEncoder: encoder_layer's type can only be TransformerEncoderLayer")
    args = {k: v for k, v in encoder_layer.items() if k != "type"}
    missing = [k for k in _LAYER_ARGS[:3] if k not in args]
    if missing:
        raise ArgumentValueError(f"TransformerEncoder: encoder_layer needs '{missing[0]}'")
    name = name or "transformer_encoder"
    x = A.transformer_encoder(src, num_layers, src_mask=src_mask, name=name, length=length, **args)
    if norm is None:
        return x
    if not isinstance(norm, dict):
        raise ArgumentValueError(
            f"TransformerEncoder: norm must be a mapping of LayerNorm's arguments "
            f"({{}} for LayerNorm(d_model)), not {norm!r}"
        )
    return LayerNorm(x, **dict({"normalized_shape": args["d_model"]}, **norm), name=f"{name}.norm")
