"""The layer types a model file names by paddle.nn's 2.x class names (pe_cli/layers/paddle_nn.py):
given the same weights they equal paddle.nn's classes (which tests/paddle/test_paddle_oracle.py checks
against Paddle 2.6.2), their parameters carry Paddle's names below the layer's, and in a model file
their 2.x forward arguments (query, key, value, src) name layers while fill_constant's value stays a
number; a wrong encoder_layer argument is one error at the layer."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.config.errors import ConfigError
from pe_cli.config.model import check_model, load_model
from pe_cli.executor.scope import Scope
from pe_cli.framework import unique_name
from pe_cli.layers import paddle_nn as P
from pe_cli.run.build import build_model

nn = paddle.nn


def _copy(scope, layer, prefix):
    for key, value in layer.state_dict().items():  # layers.0.norm1.weight -> enc.layers.0.norm1.w_0
        name = prefix + ("." + key).replace(".weight", ".w_0").replace(".bias", ".b_0")[1:]
        scope.find_var(name).get_tensor().set(np.asarray(value), paddle.CPUPlace())


def test_the_2x_names_equal_paddle_nn_given_the_same_weights():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), unique_name.guard():
        x = paddle.static.data("x", [None, 5, 8])
        length = paddle.static.data("length", [None, 1], "int64")
        keep = paddle.static.data("keep", [None, 1, 1, 5], "bool")
        ids = paddle.static.data("ids", [None, 5], "int64")
        ours = [
            P.TransformerEncoder(
                x,
                {"d_model": 8, "nhead": 2, "dim_feedforward": 16, "dropout": 0.0},
                2,
                norm={},
                name="enc",
                length=length,
            ),
            P.TransformerEncoderLayer(x, 8, 2, 16, dropout=0.0, normalize_before=True, name="one", length=length),
            P.MultiHeadAttention(x, 8, 4, attn_mask=keep, need_weights=True, name="mha")[0],
            P.LayerNorm(P.Linear(x, 8, 3, name="lin"), 3, name="ln"),
            P.Embedding(ids, 10, 4, padding_idx=0, name="emb"),
        ]
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2, norm=nn.LayerNorm(8))
        one = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, normalize_before=True)
        mha, lin, ln, emb = nn.MultiHeadAttention(8, 4), nn.Linear(8, 3), nn.LayerNorm(3), nn.Embedding(10, 4, 0)
        theirs = [enc(x, keep), one(x, keep), mha(x, x, x, keep), ln(lin(x)), emb(ids)]
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), Scope()
    rng = np.random.RandomState(5)
    lengths = np.array([[5], [2]], "int64")
    feed = {
        "x": rng.randn(2, 5, 8).astype("float32"),
        "length": lengths,
        "keep": np.arange(5)[None, None, None, :] < lengths[:, :, None, None],
        "ids": rng.randint(0, 10, (2, 5)).astype("int64"),
    }
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for layer, prefix in ((enc, "enc."), (one, "one."), (mha, "mha."), (lin, "lin."), (ln, "ln."), (emb, "emb.")):
            _copy(scope, layer, prefix)
        got = exe.run(main, feed=feed, fetch_list=ours + theirs)
    for mine, want in zip(got[:5], got[5:]):
        np.testing.assert_allclose(mine, want, rtol=1e-5, atol=1e-5)
    names = {p.name for p in main.global_block().all_parameters()}
    assert {
        "enc.layers.1.self_attn.q_proj.w_0",
        "enc.norm.w_0",
        "one.linear2.b_0",
        "mha.out_proj.w_0",
        "lin.w_0",
        "ln.b_0",
        "emb.w_0",
    } <= names


MODEL = """
feeds:
  x: {shape: [5, 8]}
  label: {shape: [1], dtype: int64}
layers:
  - att:   {type: MultiHeadAttention, query: x, key: x, value: x, embed_dim: 8, num_heads: 2}
  - enc:   {type: TransformerEncoder, src: att, num_layers: 1, encoder_layer: %s}
  - fill:  {type: fill_constant, shape: [1], dtype: float32, value: 2.0}
  - drop:  {type: Dropout, input: enc, p: 0.1}
  - mean:  {type: reduce_mean, input: drop, dim: 1}
  - out:   {type: Linear, input: mean, in_features: 8, out_features: 2, weight_attr: {name: head}}
  - xent:  {type: softmax_with_cross_entropy, logits: out, label: label}
  - loss:  {type: mean, x: xent}
loss: loss
"""


def _build(tmp_path, encoder_layer):
    path = tmp_path / "m.yaml"
    path.write_text(MODEL % encoder_layer)
    spec = load_model(str(path))
    check_model(spec)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), unique_name.guard():
        return build_model(spec), main


def test_a_model_file_names_layers_by_their_2x_forward_arguments(tmp_path):
    built, main = _build(tmp_path, "{d_model: 8, nhead: 2, dim_feedforward: 16}")
    assert list(built.var("enc").shape) == [-1, 5, 8] and list(built.var("out").shape) == [-1, 2]
    names = {p.name for p in main.global_block().all_parameters()}
    assert {"att.q_proj.w_0", "enc.layers.0.linear1.w_0", "head"} <= names


def test_a_wrong_encoder_layer_argument_is_one_error_at_the_layer(tmp_path):
    with pytest.raises(
        ConfigError,
        match=r"m\.yaml:7:12: layers\[1\]\.enc: TransformerEncoder: encoder_layer has no argument 'nheads' \(it takes d_model,",
    ) as e:
        _build(tmp_path, "{d_model: 8, nheads: 2, dim_feedforward: 16}")
    line = str(e.value)
    assert "m.yaml:7" in line and "encoder_layer has no argument 'nheads'" in line and "\n" not in line.strip()
