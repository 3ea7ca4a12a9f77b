"""BasicDecoder + TrainingHelper through dynamic_decode (a While loop over tensor arrays) against the
same cell run by layers.rnn with sequence_length: the same outputs, final states, lengths, and the
same gradients (training through the decoding loop)."""

import numpy as np

from pe_cli import fluid
from pe_cli.fluid import layers
from pe_cli.training.param_attr import ParamAttr

B, T, D, H = 3, 4, 5, 6
rng = np.random.default_rng(5)
FEED = {"x": rng.normal(size=(B, T, D)), "h0": rng.normal(size=(B, H)), "len": np.array([4, 2, 3], "int64")}
# a named ParamAttr's GRUCell parameters, as Fluid names them: <name>_gate, <name>_candidate
WEIGHTS = {
    "g.w_gate": rng.normal(size=(D + H, 2 * H)) * 0.4,
    "g.w_candidate": rng.normal(size=(D + H, H)) * 0.4,
    "g.b_gate": rng.normal(size=2 * H) * 0.1,
    "g.b_candidate": rng.normal(size=H) * 0.1,
}
GRADS = ["x@GRAD", "h0@GRAD", "g.w_gate@GRAD", "g.w_candidate@GRAD", "g.b_gate@GRAD"]


def _build(use_decoder):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", [B, T, D], dtype="float64", append_batch_size=False)
        h0 = layers.data("h0", [B, H], dtype="float64", append_batch_size=False)
        length = layers.data("len", [B], dtype="int64", append_batch_size=False)
        x.stop_gradient = h0.stop_gradient = False
        cell = layers.GRUCell(H, param_attr=ParamAttr("g.w"), bias_attr=ParamAttr("g.b"), dtype="float64")
        if use_decoder:
            decoder = layers.BasicDecoder(cell, layers.TrainingHelper(x, length))
            out, h, lens = layers.dynamic_decode(decoder, inits=h0, impute_finished=True, return_length=True)
            out = out.cell_outputs
        else:
            out, h = layers.rnn(cell, x, h0, sequence_length=length)
            lens = length
        loss = layers.reduce_sum(h * h) + layers.reduce_sum(out * out) * 0.0
        fluid.backward.append_backward(loss)
    return main, [out, h, lens] + GRADS


def _run(use_decoder):
    main, fetch = _build(use_decoder)
    scope = fluid.core.Scope()
    for name, value in WEIGHTS.items():
        scope.var(name).get_tensor().set(value, fluid.CPUPlace())
    with fluid.scope_guard(scope):
        return fluid.Executor(fluid.CPUPlace()).run(main, feed=FEED, fetch_list=fetch)


def test_training_helper_decoder_matches_rnn_with_lengths():
    got, want = _run(True), _run(False)
    out, ref_out = got[0], want[0]
    assert out.shape == (B, T, H)
    for b, n in enumerate(FEED["len"]):
        np.testing.assert_allclose(out[b, :n], ref_out[b, :n], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(got[2], FEED["len"])
    for name, g, w in zip(GRADS, got[3:], want[3:]):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11, err_msg=name)
