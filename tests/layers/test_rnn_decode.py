"""Fluid 1.8's decoding API: a tiny seq2seq (a layers.rnn(GRUCell) encoder, a GRUCell decoder trained
with teacher forcing through layers.rnn) learns to reverse token sequences, then BeamSearchDecoder +
dynamic_decode, sharing the trained parameters by name, must reverse most held-out sequences; plus
the beam search's bookkeeping on a hand-made cell whose scores are known."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import layers
from pe_cli.training.param_attr import ParamAttr

START, END, WORDS = 0, 1, 8  # word ids 2..9
VOCAB, EMBED, HIDDEN, LEN = WORDS + 2, 16, 48, 4


def _embed(ids, name):
    return layers.embedding(ids, [VOCAB, EMBED], param_attr=ParamAttr(name))


def _project(x):
    return layers.fc(
        x, VOCAB, num_flatten_dims=len(x.shape) - 1, param_attr=ParamAttr("out_w"), bias_attr=ParamAttr("out_b")
    )


def _cells():
    return (
        layers.GRUCell(HIDDEN, param_attr=ParamAttr("enc_w"), bias_attr=ParamAttr("enc_b")),
        layers.GRUCell(HIDDEN, param_attr=ParamAttr("dec_w"), bias_attr=ParamAttr("dec_b")),
    )


def _encode(enc_cell):
    src = layers.data("src", [LEN], dtype="int64")
    _, state = layers.rnn(enc_cell, _embed(src, "src_emb"))
    return state


def train_program():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup):
        enc_cell, dec_cell = _cells()
        state = _encode(enc_cell)
        trg = layers.data("trg", [LEN + 1], dtype="int64")
        label = layers.data("label", [LEN + 1, 1], dtype="int64")
        out, _ = layers.rnn(dec_cell, _embed(trg, "trg_emb"), initial_states=state)
        loss = layers.mean(layers.softmax_with_cross_entropy(_project(out), label))
        fluid.optimizer.Adam(0.01).minimize(loss)
    return main, startup, loss


def decode_program(beam_size, is_test):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        enc_cell, dec_cell = _cells()
        state = _encode(enc_cell)
        decoder = layers.BeamSearchDecoder(
            dec_cell,
            START,
            END,
            beam_size,
            embedding_fn=lambda ids: _embed(layers.unsqueeze(ids, [2]), "trg_emb"),
            output_fn=_project,
        )
        ids, final, lengths = layers.dynamic_decode(
            decoder, inits=state, max_step_num=LEN + 2, is_test=is_test, return_length=True
        )
    return main, ids, final, lengths


def batch(rng, n):
    src = rng.integers(2, VOCAB, size=(n, LEN)).astype("int64")
    rev = src[:, ::-1]
    trg = np.concatenate([np.full((n, 1), START), rev], 1)
    label = np.concatenate([rev, np.full((n, 1), END)], 1)[:, :, None]
    return src, trg, label


@pytest.fixture(scope="module")
def trained():
    rng = np.random.default_rng(0)
    main, startup, loss = train_program()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(500):
            src, trg, label = batch(rng, 64)
            (last,) = exe.run(main, feed={"src": src, "trg": trg, "label": label}, fetch_list=[loss])
    return scope, float(np.asarray(last).reshape(-1)[0])


@pytest.mark.parametrize("beam_size,is_test", [(3, True), (1, True), (3, False)])
def test_beam_search_decoder_reverses_held_out_sequences(trained, beam_size, is_test):
    scope, last_loss = trained
    assert last_loss < 0.2, last_loss
    src, _, _ = batch(np.random.default_rng(99), 50)
    main, ids, final, lengths = decode_program(beam_size, is_test)
    with fluid.scope_guard(scope):
        got, lens, log_probs = fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"src": src}, fetch_list=[ids, lengths, final.log_probs]
        )
    assert got.shape[0] == len(src) and got.shape[2] == beam_size and got.shape[1] <= LEN + 3
    best = got[:, :, 0]
    want = np.concatenate([src[:, ::-1], np.full((len(src), 1), END)], 1)
    right = sum(np.array_equal(row[: LEN + 1], w) for row, w in zip(best, want))
    assert right >= 0.9 * len(src), f"{right} of {len(src)} reversed"
    assert np.all(lens[:, 0][[np.array_equal(r[: LEN + 1], w) for r, w in zip(best, want)]] == LEN + 1)
    assert np.all(np.diff(log_probs, axis=1) <= 1e-6)  # beams best first


class _FixedCell(layers.RNNCell):
    """A cell whose logits depend only on the step count it carries as its state."""

    def __init__(self, table):
        self.table = table  # [steps, vocab] log-probabilities

    def call(self, inputs, states):
        step = layers.cast(states, "int64")
        logits = layers.gather(layers.assign(self.table.astype("float32")), layers.reshape(step, [-1]))
        return logits, layers.scale(states, 1.0, 1.0)

    @property
    def state_shape(self):
        return [1]


def test_beam_search_bookkeeping_on_known_scores():
    """Vocabulary [start, end, a, b]. Step 0 keeps "a" and "b"; step 1's best two both extend "a":
    "a end" (finished) and "a a"; at step 2 the finished beam can only repeat end at no cost and
    "a a end" ends the other, so decoding stops after 3 steps."""
    p = np.log(np.array([[1e-6, 0.1, 0.6, 0.3], [1e-6, 0.5, 0.45, 0.05], [1e-6, 0.9, 0.05, 0.05]]))
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        ref = layers.data("ref", [1])
        cell = _FixedCell(p)
        decoder = layers.BeamSearchDecoder(cell, 0, 1, 2)
        ids, final, lengths = layers.dynamic_decode(
            decoder, inits=cell.get_initial_states(ref), max_step_num=5, is_test=True, return_length=True
        )
    with fluid.scope_guard(fluid.core.Scope()):
        got, scores, lens = fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"ref": np.zeros((2, 1), "float32")}, fetch_list=[ids, final.log_probs, lengths]
        )
    lp = p - np.log(np.exp(p).sum(1, keepdims=True))  # log_softmax of the logits
    assert got.shape == (2, 3, 2), got.shape
    for b in range(2):
        np.testing.assert_array_equal(got[b, :, 0], [2, 1, 1])  # a end (end)
        np.testing.assert_array_equal(got[b, :, 1], [2, 2, 1])  # a a end
        np.testing.assert_allclose(scores[b], [lp[0, 2] + lp[1, 1], lp[0, 2] + lp[1, 2] + lp[2, 1]], rtol=1e-5)
        np.testing.assert_array_equal(lens[b], [2, 3])


def test_tile_beam_merge_with_batch_and_errors():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", [2, 3])
        tiled = layers.BeamSearchDecoder.tile_beam_merge_with_batch(x, 3)
        with pytest.raises(PeError, match="beam_size"):
            layers.BeamSearchDecoder(layers.GRUCell(4), 0, 1, 0)
        with pytest.raises(PeError, match="decoder must be a Decoder"):
            layers.dynamic_decode(object())
    value = np.arange(12, dtype="float32").reshape(2, 2, 3)
    with fluid.scope_guard(fluid.core.Scope()):
        (out,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": value}, fetch_list=[tiled])
    np.testing.assert_array_equal(out, np.repeat(value, 3, axis=0))


def test_while_loop_sums_and_counts():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        i = layers.fill_constant([1], "int64", 0)
        ten = layers.fill_constant([1], "int64", 10)
        x = layers.data("x", [3], dtype="float32", append_batch_size=False)
        total = layers.fill_constant([3], "float32", 0.0)
        out = layers.while_loop(
            lambda i, t: layers.less_than(i, ten),
            lambda i, t: [layers.increment(i, 1.0, in_place=False), t + x],
            [i, total],
        )
        with pytest.raises(ValueError, match="1 values for 2"):
            layers.while_loop(lambda i, t: layers.less_than(i, ten), lambda i, t: i, [i, total])
        with pytest.raises(TypeError, match="bool"):
            layers.while_loop(lambda i: i, lambda i: i, [i])
    with fluid.scope_guard(fluid.core.Scope()):
        n, t = fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"x": np.array([1, 2, 3], "float32")}, fetch_list=list(out)
        )
    assert int(np.asarray(n).reshape(-1)[0]) == 10
    np.testing.assert_allclose(t, [10, 20, 30])


def test_greedy_embedding_helper_reverses_held_out_sequences(trained):
    scope, _ = trained
    src, _, _ = batch(np.random.default_rng(98), 50)
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        enc_cell, dec_cell = _cells()
        state = _encode(enc_cell)
        start = layers.fill_constant_batch_size_like(state, [-1], "int64", START)
        helper = layers.GreedyEmbeddingHelper(lambda ids: _embed(layers.unsqueeze(ids, [1]), "trg_emb"), start, END)
        decoder = layers.BasicDecoder(dec_cell, helper, output_fn=_project)
        outputs, _, lengths = layers.dynamic_decode(decoder, inits=state, max_step_num=LEN + 2, return_length=True)
    with fluid.scope_guard(scope):
        ids, lens = fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"src": src}, fetch_list=[outputs.sample_ids, lengths]
        )
    want = np.concatenate([src[:, ::-1], np.full((len(src), 1), END)], 1)
    right = [np.array_equal(row[: LEN + 1], w) for row, w in zip(ids, want)]
    assert sum(right) >= 0.9 * len(src), f"{sum(right)} of {len(src)} reversed"
    assert np.all(lens[right] == LEN + 1)


def _sample_program(temperature, seed):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        enc_cell, dec_cell = _cells()
        state = _encode(enc_cell)
        start = layers.fill_constant_batch_size_like(state, [-1], "int64", START)
        helper = layers.SampleEmbeddingHelper(
            lambda ids: _embed(layers.unsqueeze(ids, [1]), "trg_emb"),
            start,
            END,
            softmax_temperature=temperature,
            seed=seed,
        )
        outputs, _ = layers.dynamic_decode(
            layers.BasicDecoder(dec_cell, helper, output_fn=_project), inits=state, max_step_num=LEN + 2
        )
    return main, outputs.sample_ids


def test_sample_embedding_helper(trained):
    scope, _ = trained
    src, _, _ = batch(np.random.default_rng(97), 50)
    want = np.concatenate([src[:, ::-1], np.full((len(src), 1), END)], 1)

    def draw(temperature, seed):
        main, ids = _sample_program(temperature, seed)
        with fluid.scope_guard(scope):
            return fluid.Executor(fluid.CPUPlace()).run(main, feed={"src": src}, fetch_list=[ids])[0]

    cold, hot = draw(0.05, 1), draw(50.0, 2)
    right = sum(np.array_equal(row[: LEN + 1], w) for row, w in zip(cold, want))
    assert right >= 0.9 * len(src), f"{right} of {len(src)} reversed at temperature 0.05"
    assert hot.min() >= 0 and hot.max() < VOCAB
    hot_right = sum(np.array_equal(row[: LEN + 1], w) for row, w in zip(hot, want))
    assert hot_right < 0.5 * len(src), "at temperature 50 the draws should be near uniform"
