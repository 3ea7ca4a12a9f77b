"""fluid.contrib's basic_lstm / basic_gru against a numpy LSTM / GRU with the same parameters
(Fluid 1.8's unit equations, masking of padded steps, bidirectional stacking, parameter names)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.contrib import BasicGRUUnit, BasicLSTMUnit, basic_gru, basic_lstm

RNG = np.random.default_rng(5)
B, T, D, H = 2, 4, 3, 5


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _lstm_step(p, x, h, c):
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ p["w"] + p["b"], 4, axis=1)
    c2 = c * _sig(f + 1.0) + _sig(i) * np.tanh(j)
    return np.tanh(c2) * _sig(o), c2


def _gru_step(p, x, h):
    r, u = np.split(_sig(np.concatenate([x, h], 1) @ p["w0"] + p["b0"]), 2, axis=1)
    c = np.tanh(np.concatenate([x, r * h], 1) @ p["w1"] + p["b1"])
    return u * h + (1 - u) * c


def _run_numpy(step, layers_params, x, lengths, n_states, reverse=False):
    """Time-major stacked recurrence with the masking basic_lstm applies; (top outputs, lasts)."""
    steps = range(T - 1, -1, -1) if reverse else range(T)
    states = [[np.zeros((B, H)) for _ in range(n_states)] for _ in layers_params]
    outs = np.zeros((T, B, H))
    for t in steps:
        m = t < lengths  # the mask is reversed with the input: padded steps keep the state
        inp = x[:, t]
        for li, p in enumerate(layers_params):
            new = step(p, inp, *states[li])
            new = list(new) if isinstance(new, tuple) else [new]
            states[li] = [np.where(m[:, None], n, s) for n, s in zip(new, states[li])]
            inp = states[li][0]
        outs[t] = inp
    return outs, states


def _build(fn):
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.layers.data("x", [-1, T, D], dtype="float64", append_batch_size=False)
        ln = fluid.layers.data("len", [-1], dtype="int64", append_batch_size=False)
        outs = fn(x, ln)
        fluid.backward.append_backward(fluid.layers.mean(outs[0]))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(start, scope=scope)
    return main, exe, scope, outs


def test_basic_lstm_bidirectional_two_layers_equals_numpy():
    main, exe, scope, outs = _build(
        lambda x, ln: basic_lstm(
            x, None, None, H, num_layers=2, sequence_length=ln, bidirectional=True, dtype="float64"
        )
    )
    names = [p.name for p in main.global_block().all_parameters()]
    assert names[:2] == ["basic_lstm_layers_0/BasicLSTMUnit_0.w_0", "basic_lstm_layers_0/BasicLSTMUnit_0.b_0"]
    assert "basic_lstm_reverse_layers_1/BasicLSTMUnit_0.w_0" in names
    x, lengths = RNG.normal(size=(B, T, D)), np.array([4, 2])
    out, h, c = exe.run(main, feed={"x": x, "len": lengths}, fetch_list=list(outs), scope=scope)
    par = {n: np.asarray(scope.find_var(n).get_tensor()) for n in names}

    def params(prefix):
        return [
            {
                "w": par[f"basic_lstm_{prefix}_{i}/BasicLSTMUnit_0.w_0"],
                "b": par[f"basic_lstm_{prefix}_{i}/BasicLSTMUnit_0.b_0"],
            }
            for i in range(2)
        ]

    fw, fw_last = _run_numpy(_lstm_step, params("layers"), x, lengths, 2)
    bw, bw_last = _run_numpy(_lstm_step, params("reverse_layers"), x, lengths, 2, reverse=True)
    np.testing.assert_allclose(out, np.concatenate([fw, bw], 2).transpose(1, 0, 2), rtol=1e-10, atol=1e-12)
    want_h = np.stack([s for layer in range(2) for s in (fw_last[layer][0], bw_last[layer][0])])
    want_c = np.stack([s for layer in range(2) for s in (fw_last[layer][1], bw_last[layer][1])])
    np.testing.assert_allclose(h, want_h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c, want_c, rtol=1e-10, atol=1e-12)


def test_basic_gru_time_major_with_initial_state_equals_numpy():
    h0 = RNG.normal(size=(1, B, H))

    def build(x, ln):
        init = fluid.layers.data("h0", [1, -1, H], dtype="float64", append_batch_size=False)
        return basic_gru(
            fluid.layers.transpose(x, [1, 0, 2]),
            init,
            H,
            batch_first=False,
            dtype="float64",
            param_attr=fluid.ParamAttr(name="g"),
        )

    main, exe, scope, outs = _build(build)
    assert {p.name for p in main.global_block().all_parameters()} >= {"g_fw_w_0_gate", "g_fw_w_0_candidate"}
    x = RNG.normal(size=(B, T, D))
    out, last = exe.run(main, feed={"x": x, "len": np.array([T, T]), "h0": h0}, fetch_list=list(outs), scope=scope)
    p = {
        k: np.asarray(scope.find_var(n).get_tensor())
        for k, n in [
            ("w0", "g_fw_w_0_gate"),
            ("w1", "g_fw_w_0_candidate"),
            ("b0", "basic_gru_layers_0/BasicGRUUnit_0.b_0"),
            ("b1", "basic_gru_layers_0/BasicGRUUnit_0.b_1"),
        ]
    }
    h, want = h0[0], []
    for t in range(T):
        h = _gru_step(p, x[:, t], h)
        want.append(h)
    np.testing.assert_allclose(out, np.stack(want), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(last[0], h, rtol=1e-10, atol=1e-12)


def test_units_reuse_their_parameters_and_check_hidden_size():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.layers.data("x", [-1, D], dtype="float32", append_batch_size=False)
        h = fluid.layers.data("h", [-1, H], dtype="float32", append_batch_size=False)
        lstm = BasicLSTMUnit("enc", H)
        h1, c1 = lstm(x, h, h)
        lstm(x, h1, c1)
        gru = BasicGRUUnit("dec", H)
        gru(x, h)
    assert [p.name for p in lstm.parameters()] == ["enc/BasicLSTMUnit_0.w_0", "enc/BasicLSTMUnit_0.b_0"]
    assert len(main.global_block().all_parameters()) == 6
    with pytest.raises(TypeError, match="hidden_size"):
        BasicLSTMUnit("bad", 0)
