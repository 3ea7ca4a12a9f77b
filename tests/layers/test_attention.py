"""The attention layer functions a model file's layer types build with (pe_cli/layers/attention.py):
``transformer_encoder`` equals ``paddle.nn.TransformerEncoder`` given the same weights (paddle.nn's is
checked against Paddle 2.6.2 in tests/paddle/test_paddle_oracle.py), its ``length`` masks the padding
as paddle.nn's bool mask does (junk past a length changes nothing before it), and its parameters carry
Paddle's sublayer names."""

import numpy as np
import pytest

from pe_cli import layers, paddle
from pe_cli.base.errors import PeError
from pe_cli.executor.scope import Scope

nn = paddle.nn


def _built():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 5, 8])
        length = paddle.static.data("length", [None, 1], "int64")
        keep = paddle.static.data("keep", [None, 1, 1, 5], "bool")
        mine = layers.transformer_encoder(x, 2, 8, 2, 16, dropout=0.0, length=length, name="enc")
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
        theirs = enc(x, keep)
    return main, startup, enc, mine, theirs


def test_transformer_encoder_equals_paddle_nn_and_masks_padding_by_length():
    main, startup, enc, mine, theirs = _built()
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), Scope()
    lengths = np.array([[5], [3]], "int64")
    keep = np.arange(5)[None, None, None, :] < lengths[:, :, None, None]
    rng = np.random.RandomState(3)
    xs = rng.randn(2, 5, 8).astype("float32")
    junk = xs.copy()
    junk[1, 3:] = rng.randn(2, 8) * 100  # past the second sequence's length 3
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        state = enc.state_dict()
        for key, value in state.items():  # layers.0.norm1.weight -> enc.layers.0.norm1.w_0
            name = "enc." + key.replace(".weight", ".w_0").replace(".bias", ".b_0")
            scope.find_var(name).get_tensor().set(np.asarray(value), paddle.CPUPlace())
        feed = {"x": xs, "length": lengths, "keep": keep}
        got, want = exe.run(main, feed=feed, fetch_list=[mine, theirs])
        (junked,) = exe.run(main, feed={**feed, "x": junk}, fetch_list=[mine])
    assert len(state) == 32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(junked[:, :3], got[:, :3], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(junked[0], got[0])


def test_transformer_encoder_refuses_an_input_of_the_wrong_width():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 5, 6])
        with pytest.raises(PeError, match="d_model is 8: project it first"):
            layers.transformer_encoder(x, 1, 8, 2, 16)
        with pytest.raises(PeError, match="not divisible by nhead=4"):
            layers.transformer_encoder(x, 1, 6, 4, 16)
