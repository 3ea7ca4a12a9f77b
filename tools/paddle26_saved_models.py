"""Models Paddle 2.6.2 saves, recorded for tests/io/test_paddle26_saved_models.py:

    /tmp/paddle26/bin/python tools/paddle26_saved_models.py [CASE ...]     # writes tests/data/paddle26_saved/
    /tmp/paddle26/bin/python tools/paddle26_saved_models.py --full DIR     # full-size vision models, not committed

Each case is a small ``paddle.nn`` block (or a narrow ``paddle.vision.models`` architecture), seeded, in
eval mode, saved by ``paddle.jit.save`` (``<case>/model.pdmodel`` + ``.pdiparams``: the prefix
``paddle.jit.load`` takes), or a static program saved by ``paddle.static.save_inference_model``; beside it
``record.npz`` (the inputs ``in:<feed>`` and Paddle's outputs ``out:<i>``, from ``paddle.jit.load`` of the
saved files, checked against the layer's own dygraph outputs) and ``record.json`` (feeds in order, the op
types of the saved program and the program's op_version_map). Nothing here runs in CI."""

import json
import os
import shutil
import sys

import numpy.random  # noqa: F401  (before paddle, as the guide says)
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "tests", "data", "paddle26_saved")


def _rng(seed):
    return np.random.default_rng(seed)


def _x(shape, seed=0, dtype="float32"):
    return _rng(seed).standard_normal(shape).astype(dtype)


def _layer_cases(paddle):
    nn, F = paddle.nn, paddle.nn.functional

    class Fn(nn.Layer):
        """A functional call of one input as a layer (what a user's forward holds)."""

        def __init__(self, fn, *sub):
            super().__init__()
            self.fn, self.sub = fn, nn.LayerList(sub)

        def forward(self, x):
            return self.fn(self, x)

    class Fn2(Fn):
        def forward(self, x, y):
            return self.fn(self, x, y)

    img = _x([2, 3, 9, 9])
    cases = {
        "linear": (lambda: nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4), nn.Softmax()), [_x([3, 8])]),
        "conv_bn": (
            lambda: nn.Sequential(
                nn.Conv2D(3, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(), nn.Conv2D(4, 4, 3, stride=2, groups=2)
            ),
            [img],
        ),
        "conv_nhwc": (
            lambda: nn.Sequential(
                nn.Conv2D(3, 4, 3, padding=1, data_format="NHWC"), nn.BatchNorm2D(4, data_format="NHWC")
            ),
            [_x([2, 9, 9, 3])],
        ),
        "layer_norm": (lambda: nn.Sequential(nn.Linear(6, 6), nn.LayerNorm(6)), [_x([2, 5, 6])]),
        "max_pool": (lambda: nn.MaxPool2D(3, stride=2, padding=1), [img]),
        "max_pool_ceil": (lambda: nn.MaxPool2D(2, stride=2, ceil_mode=True), [img]),
        "avg_pool": (lambda: nn.AvgPool2D(3, stride=2, padding=1), [img]),
        "avg_pool_inclusive": (lambda: nn.AvgPool2D(3, stride=2, padding=1, exclusive=False), [img]),
        "avg_pool_ceil_inclusive": (lambda: nn.AvgPool2D(2, stride=2, ceil_mode=True, exclusive=False), [img]),
        "avg_pool_ceil": (lambda: nn.AvgPool2D(2, stride=2, ceil_mode=True), [img]),
        "avg_pool_ceil_pad_inclusive": (
            lambda: nn.AvgPool2D(3, stride=2, padding=1, ceil_mode=True, exclusive=False),
            [_x([2, 3, 10, 10])],
        ),
        "avg_pool3d_ceil_inclusive": (
            lambda: nn.AvgPool3D(2, stride=2, ceil_mode=True, exclusive=False),
            [_x([1, 2, 5, 5, 5])],
        ),
        "avg_pool_nhwc": (lambda: nn.AvgPool2D(3, stride=2, padding=1, data_format="NHWC"), [_x([2, 9, 9, 3])]),
        "adaptive_avg_pool": (lambda: nn.AdaptiveAvgPool2D(4), [img]),
        "adaptive_max_pool": (lambda: nn.AdaptiveMaxPool2D(4), [img]),
        "global_avg_pool": (lambda: nn.AdaptiveAvgPool2D(1), [img]),
        "avg_pool1d": (lambda: nn.AvgPool1D(3, stride=2, padding=1), [_x([2, 3, 9])]),
        "pixel_shuffle": (lambda: nn.PixelShuffle(2), [_x([2, 8, 3, 4])]),
        "pixel_shuffle_nhwc": (lambda: nn.PixelShuffle(2, data_format="NHWC"), [_x([2, 3, 4, 8])]),
        "upsample_bilinear": (lambda: nn.Upsample(scale_factor=2, mode="bilinear"), [_x([1, 2, 4, 5])]),
        "upsample_bilinear_corners": (
            lambda: nn.Upsample(size=[7, 9], mode="bilinear", align_corners=True),
            [_x([1, 2, 4, 5])],
        ),
        "upsample_nearest": (lambda: nn.Upsample(scale_factor=2, mode="nearest"), [_x([1, 2, 4, 5])]),
        "upsample_bicubic": (lambda: nn.Upsample(size=[6, 7], mode="bicubic"), [_x([1, 2, 4, 5])]),
        "gather_axis": (
            lambda: Fn(lambda s, x: paddle.gather(x, paddle.to_tensor([2, 0, 2]), axis=1)),
            [_x([2, 4, 3])],
        ),
        "gather_axis_tensor": (
            lambda: Fn(lambda s, x: paddle.gather(x, paddle.to_tensor([1, 1, 0]), axis=paddle.to_tensor(2))),
            [_x([2, 3, 4])],
        ),
        "roll_flip": (
            lambda: Fn(lambda s, x: paddle.roll(x, 2) + paddle.flip(paddle.roll(x, [1, -1], [0, 2]), [1, 2])),
            [_x([2, 3, 4])],
        ),
        "temporal_shift_nhwc": (
            lambda: Fn(lambda s, x: F.temporal_shift(x, 2, 0.25, data_format="NHWC")),
            [_x([4, 3, 3, 8])],
        ),
        "upsample_bilinear_nhwc": (
            lambda: nn.Upsample(scale_factor=2, mode="bilinear", data_format="NHWC"),
            [_x([1, 4, 5, 2])],
        ),
        "conv_transpose": (lambda: nn.Conv2DTranspose(3, 2, 3, stride=2, padding=1, output_padding=1), [img]),
        "instance_group_norm": (
            lambda: nn.Sequential(nn.InstanceNorm2D(3), nn.Conv2D(3, 4, 1), nn.GroupNorm(2, 4)),
            [img],
        ),
        "affine_grid_sample": (
            lambda: Fn(
                lambda s, x: F.grid_sample(
                    x,
                    F.affine_grid(
                        paddle.to_tensor([[[0.9, 0.2, 0.1], [-0.1, 0.8, 0.05]]] * 2, "float32"),
                        [2, 3, 5, 6],
                        align_corners=False,
                    ),
                    align_corners=False,
                )
            ),
            [img],
        ),
        "cumsum_clip": (
            lambda: Fn(
                lambda s, x: paddle.clip(paddle.cumsum(x).reshape([3, 4]), -3.0, 4.0) + paddle.cumsum(x, axis=1)
            ),
            [_x([3, 4])],
        ),
        "softplus_embedding": (
            lambda: Fn(
                lambda s, i: F.softplus(s.sub[0](i), beta=2.0, threshold=1.5), nn.Embedding(10, 4, padding_idx=2)
            ),
            [np.array([[1, 2, 9], [2, 0, 5]], "int64")],
        ),
        "max_pool_mask": (
            lambda: Fn(
                lambda s, x: s.sub[0](x)[0] + s.sub[0](x)[1].astype("float32"),
                nn.MaxPool2D(2, stride=2, return_mask=True),
            ),
            [_x([1, 2, 6, 6])],
        ),
        "upsample_trilinear": (
            lambda: Fn(lambda s, x: F.interpolate(x, size=[4, 6, 5], mode="trilinear", data_format="NCDHW")),
            [_x([1, 2, 3, 4, 5])],
        ),
        "dropout_eval": (
            lambda: nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.3), nn.Dropout(0.2, mode="downscale_in_infer")),
            [_x([2, 4])],
        ),
        "avg_pool_divisor": (lambda: nn.AvgPool2D(3, stride=2, padding=1, divisor_override=4), [img]),
        "flatten": (lambda: nn.Sequential(nn.Conv2D(3, 2, 3), nn.Flatten(), nn.Linear(98, 3)), [img]),
        "lstm_seq_len": (
            lambda: Fn2(lambda s, x, n: s.sub[0](x, sequence_length=n)[0], nn.LSTM(4, 6)),
            [_x([2, 5, 4]), np.array([5, 3], "int64")],
        ),
        "gru_seq_len": (
            lambda: Fn2(lambda s, x, n: s.sub[0](x, sequence_length=n)[0], nn.GRU(4, 6, direction="bidirect")),
            [_x([2, 5, 4]), np.array([4, 2], "int64")],
        ),
        "transformer_encoder": (
            lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0), 2),
            [_x([2, 5, 16])],
        ),
        "multihead_attention": (
            lambda: Fn2(lambda s, q, k: s.sub[0](q, k, k), nn.MultiHeadAttention(8, 2)),
            [_x([2, 3, 8]), _x([2, 4, 8], 1)],
        ),
        "lenet": (lambda: paddle.vision.models.LeNet(num_classes=10), [_x([2, 1, 28, 28])]),
        "shufflenet_v2_x0_25": (lambda: paddle.vision.models.shufflenet_v2_x0_25(num_classes=10), [_x([1, 3, 64, 64])]),
        "mobilenet_v1_narrow": (
            lambda: paddle.vision.models.mobilenet_v1(scale=0.25, num_classes=10),
            [_x([1, 3, 64, 64])],
        ),
    }
    return cases


def _program_info(prefix, paddle):
    """(op types, op_version_map) of the saved program."""
    from paddle.base.proto import framework_pb2

    desc = framework_pb2.ProgramDesc()
    with open(prefix + ".pdmodel", "rb") as f:
        desc.ParseFromString(f.read())
    ops = sorted({op.type for b in desc.blocks for op in b.ops} - {"feed", "fetch"})
    versions = {p.op_name: p.op_version.version for p in desc.op_version_map.pair}
    return ops, versions, desc.version.version


def _loaded_outputs(paddle, prefix, inputs):
    """Paddle's own outputs from the saved files (paddle.static.load_inference_model of the prefix)."""
    paddle.enable_static()
    try:
        exe = paddle.static.Executor(paddle.CPUPlace())
        with paddle.static.scope_guard(paddle.static.Scope()):
            program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
            got = exe.run(program, feed=dict(zip(feeds, inputs)), fetch_list=fetches)
        return feeds, got
    finally:
        paddle.disable_static()


def record_layer(paddle, name, make, inputs, out):
    paddle.seed(2026)
    layer = make()
    layer.eval()
    specs = [paddle.static.InputSpec(list(a.shape), str(a.dtype), f"x{i}") for i, a in enumerate(inputs)]
    want = layer(*[paddle.to_tensor(a) for a in inputs])
    want = [np.array(w) for w in (want if isinstance(want, (list, tuple)) else [want])]
    prefix = os.path.join(out, "model")
    paddle.jit.save(layer, prefix, input_spec=specs)
    feeds, got = _loaded_outputs(paddle, prefix, inputs)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"{name}: jit.load against the layer")
    return feeds, got, prefix


def _static_fc(paddle):
    x = paddle.static.data("image", [-1, 6], "float32")
    h = paddle.static.nn.fc(x, 8, activation="relu")
    return x, paddle.nn.functional.softmax(paddle.static.nn.fc(h, 3)), [_x([4, 6], 3)]


def _static_float64(paddle):
    """assign_value of float64 values (Paddle 2.6's fp64_values, framework.proto's FLOAT64S)."""
    x = paddle.static.data("x", [-1, 3], "float64")
    c = paddle.assign(np.array([1 / 3, 2**-40, 1e300], "float64"))
    w = paddle.static.create_parameter(
        [3],
        "float64",
        name="w64",
        default_initializer=paddle.nn.initializer.Assign(np.array([1 / 3, 2**-40, 1e300], "float64")),
    )  # its startup program holds fp64_values
    return x, x * c + w, [_x([2, 3], 4, "float64")]


def _static_linspace_norm(paddle):
    """Paddle 2.x's linspace (its dtype attribute and formula) and p_norm's asvector (paddle.linalg.norm)."""
    x = paddle.static.data("x", [2, 3, 4], "float32")
    outs = [
        paddle.linalg.norm(x, p=3),
        paddle.linalg.norm(x, p=3, keepdim=True),
        paddle.linalg.norm(x, p=3, axis=1),
        paddle.linspace(0.1, 1.3, 7, dtype="float32"),
        paddle.linspace(0, 10, 6, dtype="int32"),
        paddle.linspace(-1.7, 2.9, 11, dtype="float64"),
        paddle.linspace(0.3, 1.9, 1000, dtype="float32"),
    ]
    return x, outs, [_x([2, 3, 4], 5)]


def _static_activations(paddle):
    """The activations whose op version Paddle 2.x raised (leaky_relu, hard_shrink, softplus, mish), at
    attribute values where 1.8 and 2.x may differ."""
    F = paddle.nn.functional
    x = paddle.static.data("x", [3, 8], "float32")
    outs = [
        F.leaky_relu(x, 0.3),
        F.leaky_relu(x, -0.5),
        F.hardshrink(x, 0.3),
        F.softplus(x, beta=2.0, threshold=1.5),
        F.mish(x * 10),
        F.elu(x, 0.5),
        F.softshrink(x, 0.3),
    ]
    return x, outs, [_x([3, 8], 6) * 2]


def _static_activations_2x(paddle):
    """The values where Paddle 2.x's formula differs from Fluid 1.8's (pe refuses them in a 2.x model)."""
    F = paddle.nn.functional
    x = paddle.static.data("x", [3, 8], "float32")
    return x, [F.leaky_relu(x, 2.0), F.hardshrink(x, -0.5), F.elu(x, -0.5)], [_x([3, 8], 6) * 2]


def _static_integer_division(paddle):
    """Paddle 2.x's floored integer division and the divisor's sign of its remainder (issue 96), a reduction
    over ``axis=[]`` (every axis, saved as dim=[])."""
    x = paddle.static.data("x", [2, 6], "int64")
    y = paddle.assign(np.array([3, 5, 3, -2, 2, -2], "int64"))
    f = paddle.cast(x, "float64")
    outs = [x // y, paddle.floor_divide(x, y), x % y, paddle.remainder(x, y), paddle.divide(x, y), x // 4]
    outs += [paddle.floor_divide(f * 1.25, paddle.cast(y, "float64")), paddle.sum(f, axis=[])]
    return x, outs, [np.array([[-4, 0, -8, 7, 7, -7], [9, -9, 1, -1, 5, -6]], "int64")]


def _static_flip_interp(paddle):
    """flip (Paddle 2.x's axis), interpolate by int scales, squeeze, one_hot, roll: the attributes and op
    versions Paddle 2.6.2 reads differently from Fluid 1.8."""
    F = paddle.nn.functional
    x = paddle.static.data("x", [2, 3, 4, 4], "float32")
    outs = [
        paddle.flip(x, 1),
        paddle.flip(x, [2, 3]),
        F.interpolate(x, scale_factor=2, mode="nearest"),
        F.interpolate(x, scale_factor=[2, 3], mode="bilinear"),
        paddle.squeeze(paddle.unsqueeze(x, [0, 3]), [0, 3]),
        paddle.roll(x, [1, -2], [1, 3]),
        paddle.roll(x, 3),
    ]
    return x, outs, [_x([2, 3, 4, 4], 7)]


def _static_one_hot(paddle):
    ids = paddle.static.data("ids", [4, 1], "int64")
    F = paddle.nn.functional
    return ids, [F.one_hot(ids, 5), F.one_hot(paddle.squeeze(ids, -1), 6)], [np.array([[1], [4], [0], [2]], "int64")]


def _static_reductions(paddle):
    x = paddle.static.data("x", [3, 4, 5], "float32")
    outs = [
        paddle.mean(x, axis=[0, 2]),
        paddle.max(x, axis=-1, keepdim=True),
        paddle.cumsum(x, axis=1),
        paddle.diagonal(x, 0, 1, 2),
        paddle.tile(x, [1, 2, 1]),
        paddle.expand(paddle.unsqueeze(x, 0), [2, 3, 4, 5]),
        paddle.clip(x, -0.5, 0.5),
        paddle.argmax(x, axis=1),
        paddle.topk(x, 2)[0],
    ]
    return x, outs, [_x([3, 4, 5], 8)]


def _static_tensor_args(paddle):
    """Tensor-valued arguments (issue 96) as a program's own constants and shapes: gather's Axis, interpolate's
    OutSize and SizeTensor, one_hot_v2's depth_tensor, linspace's Start/Stop/Num, reshape2's Shape and
    ShapeTensor, top_k_v2's K."""
    F = paddle.nn.functional
    x = paddle.static.data("x", [2, 3, 4, 5], "float32")

    def c(v, dtype="int32"):
        return paddle.full([1], v, dtype)

    ids = paddle.argmax(x, axis=-1)
    x3 = paddle.reshape(x, [2, 3, 20])
    outs = [
        paddle.gather(x, paddle.assign(np.array([3, 1, 3], "int32")), axis=c(2, "int64")),
        F.interpolate(x, size=paddle.assign(np.array([5, 7], "int32")), mode="bilinear"),
        F.interpolate(x, size=paddle.shape(x)[2:] * 2, mode="nearest"),
        F.interpolate(x, size=[c(3), 7], mode="bilinear", align_corners=True),
        F.interpolate(x3, size=[c(9)], mode="linear", data_format="NCW"),
        F.one_hot(ids, num_classes=c(6)),
        paddle.linspace(c(0.5, "float32"), c(2.0, "float32"), c(7)),
        paddle.linspace(0.1, 1.3, 9),
        paddle.linspace(-3, 40, 6, dtype="int64"),
        paddle.reshape(x, paddle.assign(np.array([6, 20], "int32"))),
        paddle.reshape(x, [c(3), -1, 5]),
    ]
    outs += list(paddle.topk(x, k=c(2)))
    return x, outs, [_x([2, 3, 4, 5], 7)]


def _static_tensor_feeds(paddle):
    """The same arguments fed when the program runs (a saved model's feeds)."""
    F = paddle.nn.functional
    x = paddle.static.data("x", [2, 3, 4, 5], "float32")
    ids = paddle.static.data("ids", [4, 2], "int64")
    axis = paddle.static.data("axis", [1], "int64")
    size = paddle.static.data("size", [2], "int32")
    dim = paddle.static.data("dim", [1], "int32")
    outs = [
        paddle.gather(x, paddle.assign(np.array([1, 0], "int64")), axis=axis),
        F.interpolate(x, size=size, mode="bilinear"),
        F.interpolate(x, size=[dim, 4], mode="nearest"),
        F.one_hot(ids, num_classes=dim),
        paddle.linspace(paddle.cast(dim, "float32"), paddle.full([1], 9.0), dim),
        paddle.reshape(x, size * paddle.assign(np.array([1, 2], "int32"))),
        paddle.reshape(x, [dim, -1]),
        paddle.topk(x, k=dim, axis=1, largest=False)[0],
    ]
    feeds = [x, ids, axis, size, dim]
    values = [
        _x([2, 3, 4, 5], 8),
        np.array([[0, 2], [2, 1], [1, 1], [0, 1]], "int64"),
        np.array([3], "int64"),
        np.array([6, 10], "int32"),
        np.array([3], "int32"),
    ]
    return feeds, outs, values


def _static_unique_norm(paddle):
    """Paddle 2.x's unique with its extra outputs (with and without axis) and p_norm of porder 0, inf, -inf."""
    x = paddle.static.data("x", [5, 4], "float32")
    r = paddle.round(x)
    outs = list(paddle.unique(r, return_index=True, return_inverse=True, return_counts=True))
    outs += list(paddle.unique(paddle.cast(r, "int64"), return_inverse=True, axis=0, dtype="int32"))
    outs += list(paddle.unique(r, return_counts=True, axis=1))
    outs += [
        paddle.linalg.norm(r, p=0, axis=1),
        paddle.linalg.norm(x, p=np.inf, axis=0, keepdim=True),
        paddle.linalg.norm(x, p=-np.inf),
        paddle.linalg.norm(x, p=float("inf")),
    ]
    v = np.round(_x([5, 4], 9) * 1.5)
    v[3] = v[1]
    v[:, 2] = v[:, 0]
    return x, outs, [v + 0.2]


def _static_cast(paddle):
    """paddle.cast to and from int16, uint8, int8, bool and float16 (float16 as Paddle's CPU makes it)."""
    x = paddle.static.data("x", [8], "float32")
    i16 = paddle.cast(x, "int16")
    outs = [i16, paddle.cast(x, "uint8"), paddle.cast(x, "int8"), paddle.cast(x, "bool"), paddle.cast(x, "float16")]
    outs += [paddle.cast(i16, d) for d in ("float32", "int64", "bool", "float16", "uint8")]
    outs += [paddle.cast(paddle.cast(x, "float16"), "int16"), paddle.cast(paddle.cast(x, "bool"), "int16")]
    return x, outs, [np.array([-300.7, -2.5, 0.0, 1.9, 200.2, 70000.0, 0.1, 2049.9], "float32")]


def _static_grid_sample(paddle):
    """F.grid_sample's nearest mode and border / reflection padding, align_corners both ways."""
    F = paddle.nn.functional
    x = paddle.static.data("x", [2, 3, 5, 6], "float32")
    grid = paddle.assign((_x([2, 4, 3, 2], 10) * 0.8).astype("float32"))
    outs = [
        F.grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=corners)
        for mode in ("nearest", "bilinear")
        for pad in ("zeros", "border", "reflection")
        for corners in (True, False)
    ]
    return x, outs, [_x([2, 3, 5, 6], 11)]


def _static_vision_ops(paddle):
    """paddle.vision.ops' yolo_box, deform_conv2d (v1, v2 with a mask) and DeformConv2D (weights assigned)."""
    ops, init = paddle.vision.ops, paddle.nn.initializer.Assign
    x = paddle.static.data("x", [1, 14, 4, 4], "float32")
    inp = paddle.static.data("inp", [1, 4, 5, 5], "float32")
    off = paddle.static.data("off", [1, 18, 5, 5], "float32")
    mask = paddle.static.data("mask", [1, 9, 5, 5], "float32")
    img = paddle.assign(np.array([[24, 40]], "int32"))
    w = paddle.static.create_parameter([6, 4, 3, 3], "float32", default_initializer=init(_x([6, 4, 3, 3], 12)))
    b = paddle.static.create_parameter([6], "float32", default_initializer=init(_x([6], 13)))
    layer = ops.DeformConv2D(
        4,
        2,
        3,
        padding=1,
        groups=2,
        weight_attr=paddle.ParamAttr(initializer=init(_x([2, 2, 3, 3], 14))),
        bias_attr=paddle.ParamAttr(initializer=init(_x([2], 15))),
    )
    outs = list(ops.yolo_box(x, img, [10, 13, 16, 30], 2, 0.01, 8, scale_x_y=1.05))
    outs += list(ops.yolo_box(x, img, [10, 13, 16, 30], 2, 0.3, 8, clip_bbox=False))
    outs += [
        ops.deform_conv2d(inp, off, w, padding=1),
        ops.deform_conv2d(inp, off, w, b, padding=1, mask=mask),
        layer(inp, off, mask),
        layer(inp, off),
    ]
    values = [_x([1, 14, 4, 4], 16), _x([1, 4, 5, 5], 17), _x([1, 18, 5, 5], 18)]
    values.append(np.abs(_x([1, 9, 5, 5], 19)) / 3)
    return [x, inp, off, mask], outs, values


def _static_feed_op_output(paddle):
    """save_inference_model whose feed is an op's output: Paddle prunes the program to start there."""
    x = paddle.static.data("x", [-1, 4], "float32")
    h = paddle.scale(x, 2.0, 1.0)
    w = paddle.static.create_parameter(
        [4, 3], "float32", default_initializer=paddle.nn.initializer.Assign(_x([4, 3], 20))
    )
    return [h], [paddle.nn.functional.relu(paddle.matmul(h, w)) * 3.0], [_x([2, 4], 21)]


def _static_graph_message_passing(paddle):
    """paddle.geometric's message passing (send_u_recv of each reduce_op, an int out_size and a tensor one;
    send_ue_recv of 1-D edge weights, sub and div; send_uv) and segment_sum, over node features a parameter
    mixes."""
    geo = paddle.geometric
    x = paddle.static.data("x", [5, 3], "float32")
    src = paddle.static.data("src", [6], "int64")
    dst = paddle.static.data("dst", [6], "int64")
    e = paddle.static.data("e", [6], "float32")
    size = paddle.static.data("size", [1], "int64")
    seg = paddle.static.data("seg", [5], "int64")
    w = paddle.static.create_parameter(
        [3, 4], "float32", default_initializer=paddle.nn.initializer.Assign(_x([3, 4], 22))
    )
    h = paddle.matmul(x, w)
    outs = [geo.send_u_recv(h, src, dst, op) for op in ("sum", "mean", "max", "min")]
    outs += [geo.send_u_recv(h, src, dst, "mean", out_size=7), geo.send_u_recv(h, src, dst, "sum", out_size=size)]
    outs += [geo.send_ue_recv(h, e, src, dst, m, r) for m, r in (("add", "sum"), ("sub", "max"), ("mul", "mean"))]
    outs += [geo.send_ue_recv(h, e, src, dst, "div", "min", out_size=6)]
    col = paddle.sum(x, axis=1, keepdim=True)
    outs += [geo.send_uv(h, h, src, dst, "add"), geo.send_uv(h, col, src, dst, "mul")]
    outs += [geo.send_uv(h, paddle.sum(x, axis=1), src, dst, "sub"), geo.segment_sum(h, seg)]
    values = [_x([5, 3], 23), np.array([0, 1, 2, 0, 4, 3]), np.array([1, 2, 1, 0, 1, 3])]
    values += [np.abs(_x([6], 24)) + 0.5, np.array([6]), np.array([0, 0, 1, 3, 3])]
    return [x, src, dst, e, size, seg], outs, values


def _static_graph_reindex(paddle):
    """paddle.geometric.reindex_graph and reindex_heter_graph (two edge types), then send_u_recv over the
    reindexed edges of node features gathered by Out_Nodes (a GNN layer's sampled subgraph)."""
    geo = paddle.geometric
    x = paddle.static.data("x", [3], "int64")
    nb = paddle.static.data("nb", [7], "int64")
    cnt = paddle.static.data("cnt", [3], "int32")
    nb2 = paddle.static.data("nb2", [5], "int64")
    cnt2 = paddle.static.data("cnt2", [3], "int32")
    feat = paddle.static.data("feat", [10, 4], "float32")
    src, dst, nodes = geo.reindex_graph(x, nb, cnt)
    hsrc, hdst, hnodes = geo.reindex_heter_graph(x, [nb, nb2], [cnt, cnt2])
    h = geo.send_u_recv(paddle.gather(feat, nodes), src, dst, "mean", out_size=paddle.shape(nodes)[0])
    values = [np.array([0, 1, 2]), np.array([8, 9, 0, 4, 7, 6, 7]), np.array([2, 3, 2], "int32")]
    values += [np.array([0, 2, 3, 5, 1]), np.array([1, 3, 1], "int32"), _x([10, 4], 25)]
    return [x, nb, cnt, nb2, cnt2, feat], [src, dst, nodes, hsrc, hdst, hnodes, h], values


def _static_graph_sampling(paddle):
    """A GNN layer's sampled subgraph: paddle.geometric.sample_neighbors of every in-neighbour (sample_size at
    least each degree: no draw, so Paddle's values; its CPU kernel fails on -1), with their edge ids,
    reindex_graph, then send_ue_recv of gathered node features and edge weights."""
    geo = paddle.geometric
    row = paddle.static.data("row", [13], "int64")
    colptr = paddle.static.data("colptr", [11], "int64")
    nodes = paddle.static.data("nodes", [4], "int64")
    eids = paddle.static.data("eids", [13], "int64")
    feat = paddle.static.data("feat", [10, 3], "float32")
    weight = paddle.static.data("weight", [13], "float32")
    nb, count, picked = geo.sample_neighbors(row, colptr, nodes, 4, eids, return_eids=True)
    src, dst, sub = geo.reindex_graph(nodes, nb, count)
    h = geo.send_ue_recv(paddle.gather(feat, sub), paddle.gather(weight, picked), src, dst, "mul", "sum")
    values = [np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]), np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])]
    values += [np.array([5, 0, 7, 8]), np.arange(13), _x([10, 3], 26), np.abs(_x([13], 27))]
    return [row, colptr, nodes, eids, feat, weight], [nb, count, picked, src, dst, sub, h], values


STATIC = {
    "static_graph_sampling": _static_graph_sampling,
    "static_graph_reindex": _static_graph_reindex,
    "static_graph_message_passing": _static_graph_message_passing,
    "static_feed_op_output": _static_feed_op_output,
    "static_vision_ops": _static_vision_ops,
    "static_grid_sample": _static_grid_sample,
    "static_cast": _static_cast,
    "static_unique_norm": _static_unique_norm,
    "static_tensor_args": _static_tensor_args,
    "static_tensor_feeds": _static_tensor_feeds,
    "static_fc": _static_fc,
    "static_integer_division": _static_integer_division,
    "static_activations": _static_activations,
    "static_activations_2x": _static_activations_2x,
    "static_float64": _static_float64,
    "static_linspace_norm": _static_linspace_norm,
    "static_flip_interp": _static_flip_interp,
    "static_one_hot": _static_one_hot,
    "static_reductions": _static_reductions,
}


def record_static(paddle, name, out):
    """paddle.static.save_inference_model of a static program (its own feed names)."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        main.random_seed = startup.random_seed = 1
        with paddle.static.program_guard(main, startup):
            x, y, inputs = STATIC[name](paddle)
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            prefix = os.path.join(out, "model")
            feeds = x if isinstance(x, list) else [x]
            paddle.static.save_inference_model(prefix, feeds, y if isinstance(y, list) else [y], exe, program=main)
            with open(os.path.join(out, "startup.pdmodel"), "wb") as f:  # (what initializes the parameters)
                f.write(startup.desc.serialize_to_string())
    finally:
        paddle.disable_static()
    feeds, got = _loaded_outputs(paddle, prefix, inputs)
    return feeds, got, prefix, inputs


# the full-size architectures (--full DIR: outside CI, figures in docs/COMPAT.md)
FULL = (
    "resnet18",
    "mobilenet_v2",
    "mobilenet_v3_small",
    "squeezenet1_1",
    "shufflenet_v2_x1_0",
    "densenet121",
    "googlenet",
    "alexnet",
)


def _full_cases(paddle):
    models = paddle.vision.models
    return {
        name: ((lambda name=name: getattr(models, name)(pretrained=False)), [_x([1, 3, 224, 224])]) for name in FULL
    }


def main(names, root=OUT, full=False):
    import paddle

    cases = _full_cases(paddle) if full else _layer_cases(paddle)
    names = names or list(cases) + ([] if full else list(STATIC))
    for name in names:
        out = os.path.join(root, name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        if name in STATIC:
            feeds, got, prefix, inputs = record_static(paddle, name, out)
            how = "paddle.static.save_inference_model"
        else:
            make, inputs = cases[name]
            feeds, got, prefix = record_layer(paddle, name, make, inputs, out)
            how = "paddle.jit.save"
        ops, versions, program_version = _program_info(prefix, paddle)
        arrays = {f"in:{f}": a for f, a in zip(feeds, inputs)}
        arrays.update((f"out:{i}", np.asarray(g)) for i, g in enumerate(got))
        np.savez_compressed(os.path.join(out, "record.npz"), **arrays)
        with open(os.path.join(out, "record.json"), "w") as f:
            json.dump(
                {
                    "saved_by": how,
                    "feeds": feeds,
                    "ops": ops,
                    "op_version_map": versions,
                    "program_version": program_version,
                    "paddle": paddle.__version__,
                },
                f,
                indent=1,
                sort_keys=True,
            )
            f.write("\n")
        size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
        print(f"{name}: {how}, {len(ops)} op types, {size / 1024:.0f} KB", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--full"]:
        main(sys.argv[3:], os.path.abspath(sys.argv[2]), full=True)
    else:
        main(sys.argv[1:])
