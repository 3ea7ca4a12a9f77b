"""Every paddle.nn layer class of this slice builds in a static program, runs forward with the output
shape Paddle gives, and trains: one backward pass over all of them gives every parameter a finite
gradient. The clone for test turns dropout (the op) off; dropout2d/3d over whole channels are
composed, as in Paddle, so only eval() before building turns them off."""

import numpy as np

from pe_cli import paddle
from pe_cli.executor.scope import Scope

nn, F = paddle.nn, paddle.nn.functional


def _build(x4, x3, x5, seq, ids, lab):
    """(name, output, expected shape) of each layer on the inputs."""
    yield "Conv2D_reflect", nn.Conv2D(3, 4, 3, padding=1, padding_mode="reflect")(x4), (2, 4, 6, 6)
    yield "Conv2D_same_groups", nn.Conv2D(3, 6, 3, padding="SAME", groups=3)(x4), (2, 6, 6, 6)
    yield "Conv1D", nn.Conv1D(3, 4, 3, stride=2)(x3), (2, 4, 3)
    yield "Conv2DTranspose", nn.Conv2DTranspose(3, 2, 3, stride=2, padding=1, output_padding=1)(x4), (2, 2, 12, 12)
    yield "Conv1DTranspose", nn.Conv1DTranspose(3, 2, 2, stride=2)(x3), (2, 2, 16)
    yield "MaxPool2D", nn.MaxPool2D(3, 2, 1)(x4), (2, 3, 3, 3)
    yield "AvgPool2D_divisor", nn.AvgPool2D(2, divisor_override=3)(x4), (2, 3, 3, 3)
    yield "AvgPool1D", nn.AvgPool1D(2)(x3), (2, 3, 4)
    yield "MaxPool3D", nn.MaxPool3D(2)(x5), (2, 3, 2, 2, 2)
    yield (
        "AdaptiveAvgPool2D_nhwc",
        nn.AdaptiveAvgPool2D([2, 3], "NHWC")(paddle.transpose(x4, [0, 2, 3, 1])),
        (2, 2, 3, 3),
    )
    yield "AdaptiveMaxPool1D", nn.AdaptiveMaxPool1D(2)(x3), (2, 3, 2)
    yield "AdaptiveAvgPool3D", nn.AdaptiveAvgPool3D(1)(x5), (2, 3, 1, 1, 1)
    yield "BatchNorm2D", nn.BatchNorm2D(3)(x4), (2, 3, 6, 6)
    yield "BatchNorm_act", nn.BatchNorm(3, act="relu")(x4), (2, 3, 6, 6)
    yield "BatchNorm1D", nn.BatchNorm1D(3)(x3), (2, 3, 8)
    yield "BatchNorm3D", nn.BatchNorm3D(3)(x5), (2, 3, 4, 4, 4)
    yield "LayerNorm", nn.LayerNorm([6, 6])(x4), (2, 3, 6, 6)
    yield "GroupNorm", nn.GroupNorm(3, 3)(x4), (2, 3, 6, 6)
    yield "InstanceNorm2D", nn.InstanceNorm2D(3)(x4), (2, 3, 6, 6)
    yield "LocalResponseNorm", nn.LocalResponseNorm(3)(x4), (2, 3, 6, 6)
    yield "Dropout2D", nn.Dropout2D(0.3)(x4), (2, 3, 6, 6)
    yield "Dropout", nn.Dropout(0.5)(x4), (2, 3, 6, 6)
    yield "AlphaDropout", nn.AlphaDropout(0.2)(x3), (2, 3, 8)
    yield "Embedding", nn.Embedding(10, 4, padding_idx=0)(ids), (2, 5, 4)
    yield "Linear", nn.Linear(8, 5)(x3), (2, 3, 5)
    yield "Bilinear", nn.Bilinear(8, 8, 2)(seq, seq), (2, 2)
    yield "PReLU", nn.PReLU(3)(x4), (2, 3, 6, 6)
    yield "Pad2D_replicate", nn.Pad2D([1, 0, 2, 1], mode="replicate")(x4), (2, 3, 9, 7)
    yield "Pad1D", nn.Pad1D(2, mode="reflect")(x3), (2, 3, 12)
    yield "ZeroPad2D", nn.ZeroPad2D(1)(x4), (2, 3, 8, 8)
    yield "Upsample_bilinear", nn.Upsample(size=[9, 9], mode="bilinear")(x4), (2, 3, 9, 9)
    yield "Upsample_linear", nn.Upsample(scale_factor=2, mode="linear", data_format="NCW")(x3), (2, 3, 16)
    yield "UpsamplingNearest2D", nn.UpsamplingNearest2D(scale_factor=2)(x4), (2, 3, 12, 12)
    yield "Upsample_trilinear", nn.Upsample(scale_factor=2, mode="trilinear", data_format="NCDHW")(x5), (2, 3, 8, 8, 8)
    yield "PixelShuffle", nn.PixelShuffle(2)(nn.Conv2D(3, 8, 1)(x4)), (2, 2, 12, 12)
    yield "ChannelShuffle", nn.ChannelShuffle(3)(x4), (2, 3, 6, 6)
    yield "CosineSimilarity", nn.CosineSimilarity(axis=1)(x4, x4), (2, 6, 6)
    yield "Flatten", nn.Flatten()(x4), (2, 108)
    yield "Unflatten", nn.Unflatten(2, [8, 8])(nn.Flatten(2)(x5)), (2, 3, 8, 8)
    yield "GELU", nn.GELU(approximate=True)(x3), (2, 3, 8)
    yield "Maxout", nn.Maxout(3)(nn.Conv2D(3, 6, 1)(x4)), (2, 2, 6, 6)
    yield "Softmax2D", nn.Softmax2D()(x4), (2, 3, 6, 6)
    yield "SimpleRNN", nn.SimpleRNN(3, 4, num_layers=2)(seq3 := paddle.transpose(x3, [0, 2, 1]))[0], (2, 8, 4)
    yield "BiRNN", nn.BiRNN(nn.GRUCell(3, 2), nn.GRUCell(3, 2))(seq3)[0], (2, 8, 4)
    yield "MultiHeadAttention", nn.MultiHeadAttention(3, 1, dropout=0.1)(seq3), (2, 8, 3)
    yield "TransformerDecoderLayer", nn.TransformerDecoderLayer(3, 1, 4, normalize_before=True)(seq3, seq3), (2, 8, 3)
    yield "Transformer", nn.Transformer(4, 2, 1, 1, 8)(nn.Linear(3, 4)(seq3), nn.Linear(3, 4)(seq3)), (2, 8, 4)
    yield "CrossEntropyLoss", nn.CrossEntropyLoss(label_smoothing=0.1)(nn.Linear(8, 4)(seq), lab), (1,)
    yield "HSigmoidLoss", nn.HSigmoidLoss(8, 4)(seq, paddle.unsqueeze(lab, -1)), (2, 1)


def test_every_layer_builds_runs_and_gives_gradients():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x4 = paddle.static.data("x4", [None, 3, 6, 6])
        x3 = paddle.static.data("x3", [None, 3, 8])
        x5 = paddle.static.data("x5", [None, 3, 4, 4, 4])
        seq = paddle.static.data("seq", [None, 8])
        ids = paddle.static.data("ids", [None, 5], "int64")
        lab = paddle.static.data("lab", [None], "int64")
        cases = list(_build(x4, x3, x5, seq, ids, lab))
        total = paddle.add_n([paddle.sum(out) for _, out, _ in cases])
        test_program = main.clone(for_test=True)
        params = [p for p in main.global_block().all_parameters() if p.trainable]
        grads = paddle.static.gradients([total], params)
    rng = np.random.RandomState(0)
    feed = {
        "x4": rng.randn(2, 3, 6, 6).astype("float32"),
        "x3": rng.randn(2, 3, 8).astype("float32"),
        "x5": rng.randn(2, 3, 4, 4, 4).astype("float32"),
        "seq": rng.randn(2, 8).astype("float32"),
        "ids": rng.randint(0, 10, (2, 5)).astype("int64"),
        "lab": np.array([1, 3], "int64"),
    }
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(Scope()):
        exe.run(startup)
        outs = exe.run(main, feed=feed, fetch_list=[c[1] for c in cases] + grads)
        k = [c[0] for c in cases].index("Dropout")
        drop_test, drop_train = exe.run(test_program, feed=feed, fetch_list=[cases[k][1]])[0], outs[k]
    bad = [
        f"{name}: {np.shape(got)} (want {want})"
        for (name, _, want), got in zip(cases, outs)
        if np.shape(got) != want or not np.all(np.isfinite(got))
    ]
    assert not bad, bad
    assert len(params) > 80 and all(np.all(np.isfinite(g)) for g in outs[len(cases) :])
    assert np.all(drop_test == feed["x4"]) and not np.all(drop_train == feed["x4"])
