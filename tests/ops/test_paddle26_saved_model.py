"""An inference model Paddle 2.6.2 saved (tools/paddle26_op_model.py: flatten_contiguous_range, expand_v2,
top_k_v2, silu, logsumexp, reduce_amax, a 2-layer bidirectional LSTM over sequence lengths as one rnn
op, linear_interp_v2) loads in pe with paddle.static.load_inference_model and gives Paddle's outputs: to float32
rounding, and the top-k indices exactly."""

import os

import numpy as np

from pe_cli import paddle

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIX = os.path.join(HERE, "data", "paddle_models", "ops26_graph")


def test_paddle26_saved_model_gives_paddles_outputs():
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feeds, fetches = paddle.static.load_inference_model(PREFIX, exe)
    types = {op.type for op in program.global_block().ops}
    assert {
        "flatten_contiguous_range",
        "expand_v2",
        "top_k_v2",
        "silu",
        "logsumexp",
        "reduce_amax",
        "rnn",
        "linear_interp_v2",
    } <= types
    io = np.load(PREFIX + "_io.npz")
    out, idx = exe.run(program, feed={name: io[name] for name in feeds}, fetch_list=fetches)
    np.testing.assert_allclose(out, io["out"], rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(idx, io["idx"])
