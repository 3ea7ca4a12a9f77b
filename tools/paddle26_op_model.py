"""Paddle 2.6.2 saves a small inference model made of the op types pe added from Paddle 2.6's op set (issue
85): paddle.flatten (flatten_contiguous_range), paddle.expand (expand_v2), paddle.topk (top_k_v2), F.silu,
paddle.logsumexp, paddle.amax (reduce_amax), nn.LSTM over sequence lengths (rnn), F.interpolate(mode='linear') (linear_interp_v2), with its seeded initial weights; writes
tests/data/paddle_models/ops26_graph.pdmodel / .pdiparams and ops26_graph_io.npz (inputs and Paddle's
outputs). tests/ops/test_paddle26_saved_model.py loads it in pe and compares; CI never needs Paddle.

    /tmp/paddle26/bin/python tools/paddle26_op_model.py
"""

import os

import numpy.random  # noqa: F401  (before paddle, as the guide says)
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "paddle_models")


def build(paddle):
    """(feeds, fetches) of the model, built in the current static program."""
    F = paddle.nn.functional
    x = paddle.static.data("x", [2, 3, 4, 5], "float32")
    seq = paddle.static.data("seq", [2, 6, 4], "float32")
    lengths = paddle.static.data("lengths", [2], "int64")
    f = paddle.flatten(x, 1, 2)  # [2, 12, 5]
    e = paddle.expand(paddle.unsqueeze(f, 1), [2, 3, 12, 5])
    v, idx = paddle.topk(f, k=3, axis=1)
    # (set_value is left out: its `values` attribute is framework.proto's SCALARS, which pe's model reader does
    # not read yet, issue 85's attribute work; tests/ops/cases_slice_assignment.py checks set_value itself)
    y = paddle.scale(x, 2.0)
    lstm = paddle.nn.LSTM(4, 3, num_layers=2, direction="bidirect")
    out, (h, c) = lstm(seq, sequence_length=lengths)
    up = F.interpolate(
        paddle.transpose(out, [0, 2, 1]), size=[9], mode="linear", align_corners=False, data_format="NCW"
    )
    feats = [
        paddle.flatten(F.silu(v), 1),
        paddle.flatten(paddle.logsumexp(e, axis=[1, 3]), 1),
        paddle.flatten(paddle.amax(y, axis=[2]), 1),
        paddle.flatten(up, 1),
        paddle.flatten(paddle.transpose(h, [1, 0, 2]), 1),
    ]
    return [x, seq, lengths], [paddle.concat(feats, axis=1), idx]


def main():
    import paddle

    paddle.enable_static()
    paddle.seed(85)
    main_prog, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main_prog, startup):
        feeds, fetches = build(paddle)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(85)
    inputs = {
        "x": rng.uniform(-1, 1, (2, 3, 4, 5)).astype("float32"),
        "seq": rng.uniform(-1, 1, (2, 6, 4)).astype("float32"),
        "lengths": np.array([6, 3], "int64"),
    }
    outs = exe.run(main_prog, feed=inputs, fetch_list=fetches)
    prefix = os.path.join(OUT, "ops26_graph")
    paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=main_prog)
    np.savez(prefix + "_io.npz", out=outs[0], idx=outs[1], **inputs)
    print(sorted({op.type for op in main_prog.global_block().ops}))


if __name__ == "__main__":
    main()
