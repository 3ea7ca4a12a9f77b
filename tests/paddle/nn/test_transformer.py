"""paddle.nn's MultiHeadAttention and Transformer encoder in static mode: a 2-layer encoder's
forward (with a padding mask) equals a numpy transcription of Paddle's layers computed from the
weights in the scope, and a small encoder classifier trains."""

import numpy as np

from pe_cli import paddle
from pe_cli.executor.scope import Scope

nn, F = paddle.nn, paddle.nn.functional


def _layer_norm(x, w, b):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * w + b


def _mha(x, s, p, heads, mask):
    n, t, d = x.shape
    split = lambda y: y.reshape(n, t, heads, d // heads).transpose(0, 2, 1, 3)  # noqa: E731
    q, k, v = (split(x @ s[f"{p}.{m}_proj.weight"] + s[f"{p}.{m}_proj.bias"]) for m in "qkv")
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // heads) + mask
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    out = (w @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
    return out @ s[f"{p}.out_proj.weight"] + s[f"{p}.out_proj.bias"]


def _encoder_layer(x, s, p, heads, mask):
    x = _layer_norm(x + _mha(x, s, f"{p}.self_attn", heads, mask), s[f"{p}.norm1.weight"], s[f"{p}.norm1.bias"])
    ff = (
        np.maximum(x @ s[f"{p}.linear1.weight"] + s[f"{p}.linear1.bias"], 0) @ s[f"{p}.linear2.weight"]
        + s[f"{p}.linear2.bias"]
    )
    return _layer_norm(x + ff, s[f"{p}.norm2.weight"], s[f"{p}.norm2.bias"])


def test_a_two_layer_encoder_matches_numpy_and_masks_padding():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 5, 8])
        keep = paddle.static.data("keep", [None, 1, 1, 5], "bool")
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
        out = enc(x, keep)
    xs = np.random.RandomState(3).randn(2, 5, 8).astype("float32")
    keeps = np.ones((2, 1, 1, 5), bool)
    keeps[1, ..., 3:] = False  # the second sequence has length 3
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        (got,) = exe.run(main, feed={"x": xs, "keep": keeps}, fetch_list=[out])
        state = enc.state_dict()
    assert len(state) == 2 * 16 and state["layers.1.self_attn.q_proj.weight"].shape == (8, 8)
    mask = (keeps.astype("float32") - 1) * 1e9
    want = _encoder_layer(_encoder_layer(xs, state, "layers.0", 2, mask), state, "layers.1", 2, mask)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_an_encoder_classifier_trains():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        ids = paddle.static.data("ids", [None, 6], "int64")
        y = paddle.static.data("y", [None], "int64")
        emb, enc = nn.Embedding(10, 16), nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, 0.0), 1)
        head = nn.Linear(16, 2)
        logits = head(paddle.mean(enc(emb(ids)), axis=1))
        loss = F.cross_entropy(logits, y)
        paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    rng = np.random.RandomState(0)
    xs = rng.randint(0, 10, (32, 6)).astype("int64")
    ys = (xs == 3).any(axis=1).astype("int64")  # does the sequence hold a 3?
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        losses = [float(exe.run(main, feed={"ids": xs, "y": ys}, fetch_list=[loss])[0]) for _ in range(25)]
    assert losses[-1] < 0.5 * losses[0], losses
