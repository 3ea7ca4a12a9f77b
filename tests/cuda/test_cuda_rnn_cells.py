"""Fluid 1.8's cell API on CUDA (the simulator in CI): rnn(LSTMCell) with sequence_length and its
gradients, BasicDecoder + TrainingHelper through dynamic_decode (While, tensor arrays) with its
gradients, and BeamSearchDecoder (top_k, one-hot beam gathers, gather_tree) give what the CPU gives."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.fluid import layers
from tests.layers.test_rnn_basic_decoder import FEED as DFEED, WEIGHTS as DWEIGHTS, _build as decoder_program
from tests.layers.test_rnn_cells import B, C0, H, H0, T, D, WEIGHTS, X, data, lstm_cell
from tests.layers.test_rnn_decode import _FixedCell

PLACES = [fluid.CPUPlace(), fluid.CUDAPlace(0)]


def _run(place, main, feed, fetch, params):
    with fluid.scope_guard(fluid.core.Scope()):
        scope = fluid.global_scope()
        for name, value in params.items():
            if main.global_block().has_var(name):
                scope.var(name).get_tensor().set(value, fluid.CPUPlace())
        return fluid.Executor(place).run(main, feed=feed, fetch_list=fetch)


def _same(cpu, cuda):
    for a, b in zip(cpu, cuda):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("time_known", [True, False])
def test_rnn_lstm_cell_with_lengths_and_gradients(time_known):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = data("x", [B, T, D] if time_known else [B, -1, D])
        seq = layers.data("len", [B], dtype="int64", append_batch_size=False)
        out, (h, c) = layers.rnn(
            lstm_cell(), x, [data("h0", [B, H]), data("c0", [B, H])], sequence_length=seq, is_reverse=True
        )
        fluid.backward.append_backward(layers.reduce_sum(out * out) + layers.reduce_sum(h * c))
    feed = {"x": X, "h0": H0, "c0": C0, "len": np.array([4, 2, 3], "int64")}
    fetch = [out, h, c, "x@GRAD", "h0@GRAD", "LSTM.w_0@GRAD"]
    _same(*[_run(p, main, feed, fetch, WEIGHTS) for p in PLACES])


def test_training_helper_decoder_and_its_gradients():
    main, fetch = decoder_program(True)
    _same(*[_run(p, main, DFEED, fetch, DWEIGHTS) for p in PLACES])


def test_beam_search_decoder():
    p = np.log(np.array([[1e-6, 0.1, 0.6, 0.3], [1e-6, 0.5, 0.45, 0.05], [1e-6, 0.9, 0.05, 0.05]]))
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        cell = _FixedCell(p)
        ref = layers.data("ref", [1])
        decoder = layers.BeamSearchDecoder(cell, 0, 1, 2)
        ids, final, lengths = layers.dynamic_decode(
            decoder, inits=cell.get_initial_states(ref), max_step_num=5, is_test=True, return_length=True
        )
    feed = {"ref": np.zeros((2, 1), "float32")}
    cpu, cuda = [_run(pl, main, feed, [ids, final.log_probs, lengths], {}) for pl in PLACES]
    np.testing.assert_array_equal(cuda[0], cpu[0])
    np.testing.assert_allclose(cuda[1], cpu[1], rtol=1e-6)
    np.testing.assert_array_equal(cuda[2], cpu[2])
    np.testing.assert_array_equal(cpu[0][0, :, 1], [2, 2, 1])
