"""layers.lstm (Fluid's cudnn_lstm op over a padded batch: multi-layer, bidirectional, one flat weight
in cuDNN's layout) against a numpy LSTM of the standard equations; with dropout between layers while
training, the same network of cells and dropout ops; and a small training run with
layers.rnn(LSTMCell) that learns a sequence task."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import layers

T, B, D, H = 5, 3, 4, 6


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_layer(x, h, c, w, b, reverse):
    """One layer and direction: w [in + H, 4H] (rows: the input, then h; gates i, f, g, o), b [4H]."""
    out = np.zeros((x.shape[0], x.shape[1], H))
    for t in range(len(x) - 1, -1, -1) if reverse else range(len(x)):
        i, f, g, o = np.split(np.concatenate([x[t], h], 1) @ w + b, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        out[t] = h
    return out, h, c


@pytest.mark.parametrize("num_layers,bidirec", [(1, False), (2, True)])
def test_lstm_matches_numpy(num_layers, bidirec):
    dirs = 2 if bidirec else 1
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [T, B, D], dtype="float64", append_batch_size=False)
        h0 = layers.data("h0", [num_layers * dirs, B, H], dtype="float64", append_batch_size=False)
        c0 = layers.data("c0", [num_layers * dirs, B, H], dtype="float64", append_batch_size=False)
        out, last_h, last_c = layers.lstm(x, h0, c0, T, H, num_layers, is_bidirec=bidirec, name="enc")
        assert list(out.shape) == [T, B, H * dirs]
        assert list(last_h.shape) == [num_layers * dirs, B, H] == list(last_c.shape)
    rng = np.random.default_rng(1)
    feed = {
        "x": rng.normal(size=(T, B, D)),
        "h0": rng.normal(size=(num_layers * dirs, B, H)),
        "c0": rng.normal(size=(num_layers * dirs, B, H)),
    }
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        got = exe.run(main, feed=feed, fetch_list=[out, last_h, last_c])
        scope = fluid.global_scope()
        params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    ((name, flat),) = params.items()
    assert name.startswith("enc.w_") and [op.type for op in main.global_block().ops] == ["cudnn_lstm"]
    off = 0
    layer_weights = []
    for layer in range(num_layers):  # cuDNN's layout: every W_ih [4H, in], W_hh [4H, H]; then the biases
        for d in range(dirs):
            size = D if layer == 0 else H * dirs
            w_ih, w_hh = flat[off : off + 4 * H * size].reshape(4 * H, size), None
            off += 4 * H * size
            w_hh = flat[off : off + 4 * H * H].reshape(4 * H, H)
            off += 4 * H * H
            layer_weights.append(np.concatenate([w_ih.T, w_hh.T]))
    biases = [
        flat[off + 8 * H * k : off + 8 * H * k + 4 * H] + flat[off + 8 * H * k + 4 * H : off + 8 * H * (k + 1)]
        for k in range(num_layers * dirs)
    ]
    assert off + 8 * H * num_layers * dirs == flat.size
    xs, hs, cs = feed["x"], [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            o, h, c = np_layer(xs, feed["h0"][k], feed["c0"][k], layer_weights[k], biases[k], reverse=d == 1)
            outs.append(o)
            hs.append(h)
            cs.append(c)
        xs = np.concatenate(outs, -1)
    np.testing.assert_allclose(got[0], xs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], np.stack(hs), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[2], np.stack(cs), rtol=1e-10, atol=1e-12)


def test_lstm_with_dropout_while_training_is_cells_and_dropout_ops():
    """cuDNN's dropout stream between layers cannot be reproduced: that network is built of cells
    (StaticRNNs) with dropout ops between the layers, and it trains."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [T, B, D], append_batch_size=False)
        h0 = layers.data("h0", [2, B, H], append_batch_size=False)
        out, _, _ = layers.lstm(x, h0, h0, T, H, 2, dropout_prob=0.5)
        types = [op.type for op in main.global_block().ops]
        fluid.optimizer.SGD(0.1).minimize(layers.mean(out))
    assert "cudnn_lstm" not in types and "dropout" in types and "recurrent" in types
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        (got,) = exe.run(
            main, feed={"x": np.ones((T, B, D), "float32"), "h0": np.zeros((2, B, H), "float32")}, fetch_list=[out]
        )
    assert got.shape == (T, B, H) and np.isfinite(got).all()


def test_lstm_bad_arguments():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = layers.data("x", [T, B, D], append_batch_size=False)
        h0 = layers.data("h0", [1, B, H], append_batch_size=False)
        with pytest.raises(PeError, match="num_layers"):
            layers.lstm(x, h0, h0, T, H, 0)
        with pytest.raises(PeError, match=r"InitH \[1, 3, 6\] must be \[num_layers \* directions = 2"):
            layers.lstm(x, h0, h0, T, H, 2)


def test_rnn_lstm_cell_learns_to_count_ones():
    """Each sequence of 0/1 inputs is labelled with its number of ones modulo 3: the state must
    carry a count through the steps (a bag of the last inputs cannot do it)."""
    steps, n = 8, 512
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2, size=(n, steps)).astype("float32")
    labels = (bits.sum(1) % 3).astype("int64")[:, None]
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup):
        x = layers.data("x", [steps, 1])
        y = layers.data("y", [1], dtype="int64")
        _, (h, _) = layers.rnn(layers.LSTMCell(24), x)
        logits = layers.fc(h, 3)
        loss = layers.mean(layers.softmax_with_cross_entropy(logits, y))
        acc = layers.accuracy(layers.softmax(logits), y)
        test_program = main.clone(for_test=True)
        fluid.optimizer.Adam(0.02).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        for epoch in range(25):
            for s in range(0, n, 64):
                exe.run(main, feed={"x": bits[s : s + 64, :, None], "y": labels[s : s + 64]}, fetch_list=[loss])
        test = rng.integers(0, 2, size=(256, steps)).astype("float32")
        test_y = (test.sum(1) % 3).astype("int64")[:, None]
        (a,) = exe.run(test_program, feed={"x": test[:, :, None], "y": test_y}, fetch_list=[acc])
    assert float(np.asarray(a).reshape(-1)[0]) > 0.9
