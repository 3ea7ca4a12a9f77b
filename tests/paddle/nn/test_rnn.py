"""paddle.nn's recurrent layers in static mode: LSTM (2 layers, bidirectional, with sequence
lengths) and GRU forwards equal numpy transcriptions of 2.x's gate layouts computed from the weights
in the scope; final states are [layers * directions, batch, hidden]; past a length the outputs are 0."""

import numpy as np

from pe_cli import paddle
from pe_cli.executor.scope import Scope

nn = paddle.nn


def _sig(z):
    return 1 / (1 + np.exp(-z))


def _lstm_step(x, h, c, s, p):
    g = x @ s[f"{p}.weight_ih"].T + s[f"{p}.bias_ih"] + h @ s[f"{p}.weight_hh"].T + s[f"{p}.bias_hh"]
    i, f, gg, o = np.split(g, 4, axis=-1)
    c = _sig(f) * c + _sig(i) * np.tanh(gg)
    return _sig(o) * np.tanh(c), c


def _gru_step(x, h, s, p):
    xr, xz, xc = np.split(x @ s[f"{p}.weight_ih"].T + s[f"{p}.bias_ih"], 3, axis=-1)
    hr, hz, hc = np.split(h @ s[f"{p}.weight_hh"].T + s[f"{p}.bias_hh"], 3, axis=-1)
    r, z = _sig(xr + hr), _sig(xz + hz)
    cand = np.tanh(xc + r * hc)
    return (h - cand) * z + cand


def _run_lstm(xs, lengths, s, p, reverse, hidden):
    n, t, _ = xs.shape
    h, c = np.zeros((n, hidden)), np.zeros((n, hidden))
    out = np.zeros((n, t, hidden))
    for step in reversed(range(t)) if reverse else range(t):
        nh, nc = _lstm_step(xs[:, step], h, c, s, p)
        live = (step < lengths)[:, None]
        h, c = np.where(live, nh, h), np.where(live, nc, c)
        out[:, step] = nh
    return out, h, c


def test_lstm_and_gru_match_numpy():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4, 3])
        lengths = paddle.static.data("len", [None], "int64")
        lstm = nn.LSTM(3, 5, num_layers=2, direction="bidirect")
        out, (h, c) = lstm(x, sequence_length=lengths)
        gru = nn.GRU(3, 4)
        gout, gh = gru(x)
    xs = np.random.RandomState(5).randn(2, 4, 3).astype("float32")
    lens = np.array([4, 2], "int64")
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        got = exe.run(main, feed={"x": xs, "len": lens}, fetch_list=[out, h, c, gout, gh])
        s, g = lstm.state_dict(), gru.state_dict()
    layer_in, hs, cs = xs, [], []
    for layer in range(2):
        fw = _run_lstm(layer_in, lens, s, f"{layer}.cell_fw", False, 5)
        bw = _run_lstm(layer_in, lens, s, f"{layer}.cell_bw", True, 5)
        layer_in = np.concatenate([fw[0], bw[0]], -1)
        hs += [fw[1], bw[1]]
        cs += [fw[2], bw[2]]
    live = (np.arange(4)[None, :] < lens[:, None])[..., None]
    np.testing.assert_allclose(got[0], layer_in * live, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], np.stack(hs), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], np.stack(cs), rtol=1e-4, atol=1e-5)
    gh_np, gouts = np.zeros((2, 4)), []
    for step in range(4):
        gh_np = _gru_step(xs[:, step], gh_np, g, "0.cell")
        gouts.append(gh_np)
    np.testing.assert_allclose(got[3], np.stack(gouts, 1), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[4], gh_np[None], rtol=1e-4, atol=1e-5)
    assert s["0.cell_fw.weight_ih"].shape == (20, 3) and g["0.cell.weight_hh"].shape == (12, 4)
