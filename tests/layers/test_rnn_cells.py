"""Fluid 1.8's cell API: GRUCell, LSTMCell and layers.rnn / birnn forward against numpy references
of Fluid's formulas (BasicGRUUnit, BasicLSTMUnit), rnn's gradients against float64 central finite
differences, and sequence_length masking against running each sequence alone."""

import numpy as np
import pytest

from control_flow_fd import finite_differences
from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import layers
from pe_cli.training.param_attr import ParamAttr

B, T, D, H = 3, 4, 5, 6
rng = np.random.default_rng(7)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_gru(x, h, w):
    g = sigmoid(np.concatenate([x, h], 1) @ w["GRU.w_0_gate"] + w["GRU.b_0_gate"])
    r, u = g[:, :H], g[:, H:]
    c = np.tanh(np.concatenate([x, r * h], 1) @ w["GRU.w_0_candidate"] + w["GRU.b_0_candidate"])
    return u * h + (1 - u) * c


def np_lstm(x, h, c, w, forget_bias=1.0):
    g = np.concatenate([x, h], 1) @ w["LSTM.w_0"] + w["LSTM.b_0"]
    i, j, f, o = np.split(g, 4, axis=1)
    c = c * sigmoid(f + forget_bias) + sigmoid(i) * np.tanh(j)
    return np.tanh(c) * sigmoid(o), c


def gru_cell():
    return layers.GRUCell(H, param_attr=ParamAttr("GRU.w_0"), bias_attr=ParamAttr("GRU.b_0"), dtype="float64")


def lstm_cell():
    return layers.LSTMCell(H, param_attr=ParamAttr("LSTM.w_0"), bias_attr=ParamAttr("LSTM.b_0"), dtype="float64")


WEIGHTS = {
    "GRU.w_0_gate": rng.normal(size=(D + H, 2 * H)) * 0.4,
    "GRU.b_0_gate": rng.normal(size=2 * H) * 0.1,
    "GRU.w_0_candidate": rng.normal(size=(D + H, H)) * 0.4,
    "GRU.b_0_candidate": rng.normal(size=H) * 0.1,
    "LSTM.w_0": rng.normal(size=(D + H, 4 * H)) * 0.4,
    "LSTM.b_0": rng.normal(size=4 * H) * 0.1,
}
X = rng.normal(size=(B, T, D))
H0, C0 = rng.normal(size=(B, H)), rng.normal(size=(B, H))


def run(build, feed, params=WEIGHTS, grads=()):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fetch = build()
        if grads:
            loss = fetch[0]
            fluid.backward.append_backward(loss)
            fetch = list(fetch) + [f"{g}@GRAD" for g in grads]
    scope = fluid.core.Scope()
    for name, value in params.items():
        if main.global_block().has_var(name):
            scope.var(name).get_tensor().set(value, fluid.CPUPlace())
    with fluid.scope_guard(scope):
        return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch)


def data(name, shape, dtype="float64"):
    v = layers.data(name, shape, dtype=dtype, append_batch_size=False)
    v.stop_gradient = False
    return v


def test_cells_one_step_match_fluid_formulas():
    def build():
        x, h, c = data("x", [B, D]), data("h", [B, H]), data("c", [B, H])
        out_g, state_g = gru_cell()(x, h)
        out_l, (h_l, c_l) = lstm_cell()(x, [h, c])
        assert out_g is state_g and out_l is h_l
        return [out_g, h_l, c_l]

    x = X[:, 0]
    g, h, c = run(build, {"x": x, "h": H0, "c": C0})
    np.testing.assert_allclose(g, np_gru(x, H0, WEIGHTS), rtol=1e-12, atol=1e-12)
    ref_h, ref_c = np_lstm(x, H0, C0, WEIGHTS)
    np.testing.assert_allclose(h, ref_h, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c, ref_c, rtol=1e-12, atol=1e-12)


def np_rnn_lstm(x, h, c, lengths=None, reverse=False):
    outs = np.zeros((x.shape[0], x.shape[1], H))
    steps = range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])
    for t in steps:
        nh, nc = np_lstm(x[:, t], h, c, WEIGHTS)
        outs[:, t] = nh
        keep = (np.ones(len(x)) if lengths is None else (t < lengths).astype(float))[:, None]
        h, c = keep * nh + (1 - keep) * h, keep * nc + (1 - keep) * c
    return outs, h, c


@pytest.mark.parametrize("time_major,reverse", [(False, False), (True, False), (False, True)])
def test_rnn_lstm_matches_numpy(time_major, reverse):
    def build():
        x = data("x", [T, B, D] if time_major else [B, T, D])
        out, (h, c) = layers.rnn(
            lstm_cell(), x, [data("h0", [B, H]), data("c0", [B, H])], time_major=time_major, is_reverse=reverse
        )
        assert list(out.shape)[-1] == H
        return [out, h, c]

    x = X.transpose(1, 0, 2) if time_major else X
    out, h, c = run(build, {"x": x, "h0": H0, "c0": C0})
    ref_out, ref_h, ref_c = np_rnn_lstm(X, H0, C0, reverse=reverse)
    np.testing.assert_allclose(out, ref_out.transpose(1, 0, 2) if time_major else ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h, ref_h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c, ref_c, rtol=1e-10, atol=1e-12)


def test_rnn_gru_default_initial_states_are_zeros():
    def build():
        out, h = layers.rnn(gru_cell(), data("x", [B, T, D]))
        return [out, h]

    out, h = run(build, {"x": X})
    ref = np.zeros((B, H))
    for t in range(T):
        ref = np_gru(X[:, t], ref, WEIGHTS)
        np.testing.assert_allclose(out[:, t], ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reverse,time_known", [(False, True), (True, True), (False, False), (True, False)])
def test_sequence_length_masking_equals_each_sequence_alone(reverse, time_known):
    lengths = np.array([4, 2, 3], dtype="int64")

    def build(x_shape=(B, T, D), with_len=True):
        x = data("x", list(x_shape) if time_known else [x_shape[0], -1, D])
        seq = layers.data("len", [x_shape[0]], dtype="int64", append_batch_size=False) if with_len else None
        h0, c0 = data("h0", [x_shape[0], H]), data("c0", [x_shape[0], H])
        out, (h, c) = layers.rnn(lstm_cell(), x, [h0, c0], sequence_length=seq, is_reverse=reverse)
        return [out, h, c]

    out, h, c = run(build, {"x": X, "len": lengths, "h0": H0, "c0": C0})
    for b, n in enumerate(lengths):
        alone = run(
            lambda: build((1, n, D), with_len=False), {"x": X[b : b + 1, :n], "h0": H0[b : b + 1], "c0": C0[b : b + 1]}
        )
        if not reverse:  # reversed, the padding comes first: only the states are defined to match
            np.testing.assert_allclose(out[b, :n], alone[0][0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(h[b], alone[1][0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(c[b], alone[2][0], rtol=1e-10, atol=1e-12)
    ref_out, ref_h, ref_c = np_rnn_lstm(X, H0, C0, lengths, reverse)
    np.testing.assert_allclose(h, ref_h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c, ref_c, rtol=1e-10, atol=1e-12)


def _loss_program(lengths):
    def build():
        x = data("x", [B, T, D])
        seq = layers.data("len", [B], dtype="int64", append_batch_size=False)
        out, (h, c) = layers.rnn(lstm_cell(), x, [data("h0", [B, H]), data("c0", [B, H])], sequence_length=seq)
        loss = layers.reduce_sum(out * out) * 0.5 + layers.reduce_sum(c * h)
        return [loss]

    return build


def test_rnn_gradients_match_finite_differences():
    lengths = np.array([4, 2, 3], dtype="int64")
    feed = {"x": X, "len": lengths, "h0": H0, "c0": C0}
    got = run(_loss_program(lengths), feed, grads=("x", "h0", "c0", "LSTM.w_0", "LSTM.b_0"))
    values = dict(feed, **WEIGHTS)

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        (loss,) = _loss_program(lengths)()
    exe = fluid.Executor(fluid.CPUPlace())

    def loss_of(v):
        scope = fluid.core.Scope()
        for name in WEIGHTS:
            scope.var(name).get_tensor().set(v[name], fluid.CPUPlace())
        with fluid.scope_guard(scope):
            (out,) = exe.run(main, feed={k: v[k] for k in feed}, fetch_list=[loss])
        return float(np.asarray(out).reshape(-1)[0])

    for k, name in enumerate(("x", "h0", "c0", "LSTM.b_0")):
        want = finite_differences(loss_of, values, name)
        np.testing.assert_allclose(got[1 + (k if k < 3 else 4)], want, rtol=1e-5, atol=1e-6, err_msg=name)


def test_birnn_concatenates_forward_and_backward():
    def build():
        x = data("x", [B, T, D])
        out, (fw, bw) = layers.birnn(gru_cell(), gru_cell(), x)
        return [out, fw, bw]

    out, fw, bw = run(build, {"x": X})
    h_f, h_b = np.zeros((B, H)), np.zeros((B, H))
    outs_f, outs_b = [], [None] * T
    for t in range(T):
        h_f = np_gru(X[:, t], h_f, WEIGHTS)
        outs_f.append(h_f)
    for t in range(T - 1, -1, -1):
        h_b = np_gru(X[:, t], h_b, WEIGHTS)
        outs_b[t] = h_b
    np.testing.assert_allclose(out, np.concatenate([np.stack(outs_f, 1), np.stack(outs_b, 1)], -1), rtol=1e-10)
    np.testing.assert_allclose(fw, h_f, rtol=1e-10)
    np.testing.assert_allclose(bw, h_b, rtol=1e-10)


def test_get_initial_states_and_errors():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [T, D])
        h, c = layers.LSTMCell(H).get_initial_states(x, init_value=0.5)
        assert list(h.shape) == [-1, H] and list(c.shape) == [-1, H]
        with pytest.raises(PeError, match="inputs must be Variable"):  # Fluid 1.8's TypeError
            layers.rnn(layers.GRUCell(H), np.zeros((2, 3, 4)))
        with pytest.raises(PeError, match="states are \\[hidden, cell\\]"):
            layers.rnn(layers.LSTMCell(H), x, layers.data("h", [H]))
        with pytest.raises(NotImplementedError, match="RNNCell has no state_shape; give get_initial_states shape="):
            layers.rnn(layers.RNNCell(), x)
    with fluid.scope_guard(fluid.core.Scope()):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        (hv,) = exe.run(main, feed={"x": np.zeros((2, T, D), "float32")}, fetch_list=[h])
    np.testing.assert_array_equal(hv, np.full((2, H), 0.5, "float32"))


def test_layers_rnn_is_the_function_and_dynamic_lstm_still_there():
    from pe_cli import layers as pe_layers

    assert callable(layers.rnn) and layers.rnn is pe_layers.rnn and layers.rnn.__module__.endswith("rnn_api")
    assert callable(layers.dynamic_lstm) and callable(layers.dynamic_gru)


def test_nested_structure_utils():
    import collections

    from pe_cli.layers import utils

    pair = collections.namedtuple("pair", "a b")
    nest = {"z": [1, (2, 3)], "a": pair(4, {"k": 5})}
    assert utils.flatten(nest) == [4, 5, 1, 2, 3]  # dicts by sorted key
    doubled = utils.map_structure(lambda x: 2 * x, nest)
    assert doubled == {"z": [2, (4, 6)], "a": pair(8, {"k": 10})} and isinstance(doubled["a"], pair)
    assert utils.pack_sequence_as(nest, range(5)) == {"z": [2, (3, 4)], "a": pair(0, {"k": 1})}
    with pytest.raises(ValueError, match="do not nest alike"):
        utils.assert_same_structure({"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match="do not nest alike"):
        utils.map_structure(lambda x, y: x, [1, 2], [1, [2]])


class _BiasedGRU(layers.RNNCell):
    """A GRUCell whose step input is shifted by a tensor passed through rnn's keyword arguments."""

    def __init__(self):
        self.gru = gru_cell()

    def call(self, inputs, states, shift):
        return self.gru(inputs + shift, states)

    @property
    def state_shape(self):
        return [H]


def test_rnn_passes_keyword_arguments_to_the_cell():
    shift_value = rng.normal(size=(B, D))

    def build():
        x, shift = data("x", [B, T, D]), data("shift", [B, D])
        out, h = layers.rnn(_BiasedGRU(), x, data("h0", [B, H]), shift=shift)
        loss = layers.reduce_sum(h * h)
        return [loss, out, h]

    got = run(build, {"x": X, "h0": H0, "shift": shift_value}, grads=("shift", "x"))
    ref = H0
    for t in range(T):
        ref = np_gru(X[:, t] + shift_value, ref, WEIGHTS)
    np.testing.assert_allclose(got[2], ref, rtol=1e-10, atol=1e-12)
    # the shift is added at every step: its gradient is the sum of the steps' input gradients
    assert np.abs(got[3]).sum() > 0
    np.testing.assert_allclose(got[3], got[4].sum(axis=1), rtol=1e-10, atol=1e-12)
