"""``paddle.nn``'s attention layers with 2.x's structure and parameter names: MultiHeadAttention
(q/k/v/out projections), TransformerEncoderLayer / TransformerEncoder, TransformerDecoderLayer /
TransformerDecoder and Transformer (post- or pre-norm with ``normalize_before``). Masks are added to
the attention scores (bool/int masks keep where True). The incremental-decoding ``cache`` is not
supported in pe: passing one is refused."""

import copy

import numpy as np

from .. import functional as F
from ..container import LayerList
from ....layers.attention import attend, residual
from ..layer import Layer
from ... import tensor_manip as TM
from ...tensor_create import assign
from .common import Dropout, Linear
from .norm import LayerNorm

__all__ = [
    "MultiHeadAttention",
    "TransformerEncoderLayer",
    "TransformerEncoder",
    "TransformerDecoderLayer",
    "TransformerDecoder",
    "Transformer",
]


def _arguments(local_vars):
    """A layer's constructor arguments (its locals on entry), to make more layers like it."""
    return {k: v for k, v in local_vars.items() if k not in ("self", "__class__")}


def _no_cache(cache):
    if cache is not None:
        raise NotImplementedError("paddle.nn Transformer layers: cache (incremental decoding) is not supported by pe")


def _attrs(attr, n):
    """A ParamAttr for each of n sublayers: a list/tuple of n as given, else n copies of one."""
    if isinstance(attr, (list, tuple)):
        if len(attr) != n:
            raise ValueError(f"expected {n} ParamAttrs, got {len(attr)}")
        return list(attr)
    return [copy.deepcopy(attr) if attr not in (None, False) else attr for _ in range(n)]


class MultiHeadAttention(Layer):
    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout=0.0,
        kdim=None,
        vdim=None,
        need_weights=False,
        weight_attr=None,
        bias_attr=None,
    ):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"MultiHeadAttention: embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.head_dim, self.need_weights = embed_dim // num_heads, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)

    def _heads(self, x):
        return TM.transpose(TM.reshape(x, [0, 0, self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        _no_cache(cache)
        key = query if key is None else key
        value = query if value is None else value
        q, k, v = self._heads(self.q_proj(query)), self._heads(self.k_proj(key)), self._heads(self.v_proj(value))
        out, weights = attend(q, k, v, attn_mask, self.dropout, not self.training)
        out = self.out_proj(TM.reshape(TM.transpose(out, [0, 2, 1, 3]), [0, 0, self.embed_dim]))
        return (out, weights) if self.need_weights else out


class _TransformerLayer(Layer):
    """What encoder and decoder layers share, made in Paddle's order (so parameters are numbered as
    Paddle's): the attentions, linear1, dropout, linear2, the norms, the residual dropouts."""

    def __init__(self, config, attentions):
        super().__init__()
        self._config, c = config, config
        n = len(attentions) + 1
        w, b = _attrs(c["weight_attr"], n), _attrs(c["bias_attr"], n)
        attn_dropout = c["dropout"] if c["attn_dropout"] is None else c["attn_dropout"]
        act_dropout = c["dropout"] if c["act_dropout"] is None else c["act_dropout"]
        d_model, self.normalize_before = c["d_model"], c["normalize_before"]
        for i, attention in enumerate(attentions):
            setattr(
                self, attention, MultiHeadAttention(d_model, c["nhead"], attn_dropout, weight_attr=w[i], bias_attr=b[i])
            )
        self.linear1 = Linear(d_model, c["dim_feedforward"], w[-1], b[-1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(c["dim_feedforward"], d_model, w[-1], b[-1])
        for i in range(1, n + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, c["layer_norm_eps"]))
        for i in range(1, n + 1):
            setattr(self, f"dropout{i}", Dropout(c["dropout"], mode="upscale_in_train"))
        self.activation = getattr(F, c["activation"])

    def _feed_forward(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class TransformerEncoderLayer(_TransformerLayer):
    def __init__(
        self,
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
        *,
        layer_norm_eps=1e-5,
    ):
        super().__init__(_arguments(locals()), ["self_attn"])

    def forward(self, src, src_mask=None, cache=None):
        _no_cache(cache)
        src = residual(
            src, lambda x: self.self_attn(x, x, x, src_mask), self.dropout1, self.norm1, self.normalize_before
        )
        return residual(src, self._feed_forward, self.dropout2, self.norm2, self.normalize_before)


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers (the first is the one given, the others new ones of its config),
    then ``norm`` when given."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList(
            [encoder_layer if i == 0 else type(encoder_layer)(**encoder_layer._config) for i in range(num_layers)]
        )
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        _no_cache(cache)
        for layer in self.layers:
            src = layer(src, src_mask)
        return src if self.norm is None else self.norm(src)


class TransformerDecoderLayer(_TransformerLayer):
    def __init__(
        self,
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
        *,
        layer_norm_eps=1e-5,
    ):
        super().__init__(_arguments(locals()), ["self_attn", "cross_attn"])

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        _no_cache(cache)
        nb = self.normalize_before
        tgt = residual(tgt, lambda x: self.self_attn(x, x, x, tgt_mask), self.dropout1, self.norm1, nb)
        tgt = residual(tgt, lambda x: self.cross_attn(x, memory, memory, memory_mask), self.dropout2, self.norm2, nb)
        return residual(tgt, self._feed_forward, self.dropout3, self.norm3, nb)


class TransformerDecoder(Layer):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList(
            [decoder_layer if i == 0 else type(decoder_layer)(**decoder_layer._config) for i in range(num_layers)]
        )
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        _no_cache(cache)
        for layer in self.layers:
            tgt = layer(tgt, memory, tgt_mask, memory_mask)
        return tgt if self.norm is None else self.norm(tgt)


class Transformer(Layer):
    """An encoder and a decoder (each ending in a LayerNorm) of the given sizes, or the custom ones."""

    def __init__(
        self,
        d_model=512,
        nhead=8,
        num_encoder_layers=6,
        num_decoder_layers=6,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        attn_dropout=None,
        act_dropout=None,
        normalize_before=False,
        weight_attr=None,
        bias_attr=None,
        custom_encoder=None,
        custom_decoder=None,
    ):
        super().__init__()
        w, b = _attrs(weight_attr, 2), _attrs(bias_attr, 2)
        args = (d_model, nhead, dim_feedforward, dropout, activation, attn_dropout, act_dropout, normalize_before)
        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(*args, w[0], b[0]), num_encoder_layers, LayerNorm(d_model)
        )
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(*args, w[1], b[1]), num_decoder_layers, LayerNorm(d_model)
        )
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask)

    def generate_square_subsequent_mask(self, length):
        """[length, length] scores: 0 on and below the diagonal, -inf above."""
        return assign(np.triu(np.full((length, length), -np.inf, "float32"), 1))
