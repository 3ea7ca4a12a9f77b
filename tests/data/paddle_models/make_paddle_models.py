"""Writes the inference models of this folder with real PaddlePaddle, and what Paddle computes with
them, so tests/test_fluid_model_files.py can check that pe loads them and computes the same.

    python3 -m venv /tmp/pd && /tmp/pd/bin/pip install paddlepaddle==2.6.2 'numpy<2' protobuf==3.20.3
    /tmp/pd/bin/python tests/data/paddle_models/make_paddle_models.py

Paddle is not a dependency of pe: the files are written once, here, and committed (a few KB). Each
model NAME is NAME.pdmodel (the ProgramDesc protobuf, as Fluid's __model__) and NAME.pdiparams (the
parameters, Fluid's save_combine), from ``paddle.static.save_inference_model``; NAME_io.npz holds
its input(s) and Paddle's output. The weights are the random initial ones (seeded): what is checked
is that pe runs the same program, not a trained model. ``adam_state.pdparams``/``.pdopt`` are what
``paddle.static.save`` writes after one Adam step (pickles, which pe reads with its own parser, never
unpickling), and ``adam_state_values.npz`` the values Paddle's scope held.
"""
import os

import numpy as np
import paddle

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, main, feeds, fetch, exe, inputs):
    (out,) = exe.run(main, feed=inputs, fetch_list=[fetch], return_numpy=True)
    paddle.static.save_inference_model(os.path.join(HERE, name), feeds, [fetch], exe, program=main)
    np.savez(os.path.join(HERE, f"{name}_io.npz"), out=out, **{k: np.asarray(v) for k, v in inputs.items()})


def lenet(exe):
    """conv2d -> batch_norm(relu) -> max pool -> fc(tanh) -> dropout -> fc -> softmax."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        img = paddle.static.data("img", [None, 1, 12, 12], "float32")
        c = paddle.static.nn.conv2d(img, 4, 3, padding=1)
        b = paddle.static.nn.batch_norm(c, act="relu", is_test=True)
        p = paddle.nn.functional.max_pool2d(b, 2, 2)
        f = paddle.static.nn.fc(p, 16, activation="tanh")
        d = paddle.nn.functional.dropout(f, 0.3, training=False)
        out = paddle.nn.functional.softmax(paddle.static.nn.fc(d, 5))
    exe.run(startup)
    x = np.random.RandomState(0).rand(3, 1, 12, 12).astype("float32")
    save("lenet", main, [img], out, exe, {"img": x})


def mlp_relu6(exe):
    """fc -> relu6 -> fc -> sigmoid over two inputs concatenated, with a mean and a scale."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        a = paddle.static.data("a", [None, 3], "float32")
        b = paddle.static.data("b", [None, 2], "float32")
        h = paddle.nn.functional.relu6(paddle.static.nn.fc(paddle.concat([a, b], axis=1), 8))
        out = paddle.nn.functional.sigmoid(paddle.static.nn.fc(h, 2)) * 2.0 - paddle.mean(h)
    exe.run(startup)
    rng = np.random.RandomState(1)
    save("mlp_relu6", main, [a, b], out, exe, {"a": rng.randn(4, 3).astype("float32"),
                                               "b": rng.randn(4, 2).astype("float32")})


def attention(exe):
    """Paddle 2.x ops (lookup_table_v2, matmul_v2, reshape2, transpose2, layer_norm, gelu): embedding ->
    layer norm -> one two-head self-attention -> residual -> linear(gelu) -> mean over the tokens."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        ids = paddle.static.data("ids", [None, 6], "int64")
        h = paddle.nn.LayerNorm(8)(paddle.nn.Embedding(20, 8)(ids))

        def heads(t):
            return paddle.transpose(paddle.reshape(t, [-1, 6, 2, 4]), [0, 2, 1, 3])
        q, k, v = (heads(paddle.nn.Linear(8, 8)(h)) for _ in range(3))
        att = paddle.nn.functional.softmax(paddle.matmul(q, k, transpose_y=True) / 2.0)
        o = paddle.reshape(paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3]), [-1, 6, 8])
        out = paddle.mean(paddle.nn.functional.gelu(paddle.nn.Linear(8, 8)(o + h)), axis=1)
    exe.run(startup)
    save("attention", main, [ids], out, exe, {"ids": np.random.RandomState(0).randint(0, 20, (3, 6)).astype("int64")})


def ops(exe):
    """One model, many fetch targets: pooling (ceil mode, exclusive or not), a grouped dilated strided
    conv, layer_norm, activations, adaptive pooling, cumsum, a sigmoid cross-entropy, conv2d_transpose,
    group_norm, instance_norm and prelu, each against Paddle's own kernels."""
    F = paddle.nn.functional
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4, 9, 9], "float32")
        outs = [F.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True, exclusive=True),
                F.avg_pool2d(x, 3, 2, padding=1, exclusive=False), F.max_pool2d(x, 2, 2, ceil_mode=True),
                paddle.static.nn.conv2d(x, 4, 3, stride=2, padding=2, dilation=2, groups=2),
                paddle.static.nn.layer_norm(x, begin_norm_axis=2), F.leaky_relu(x, 0.1), F.elu(x, 0.7),
                F.hardsigmoid(x), F.swish(x), F.softplus(x), F.gelu(x, approximate=True), F.log_softmax(x, axis=1),
                F.adaptive_avg_pool2d(x, 4), paddle.cumsum(x, axis=2),
                F.binary_cross_entropy_with_logits(x, paddle.full_like(x, 0.3), reduction="none"),
                paddle.static.nn.conv2d_transpose(x, 3, filter_size=3, stride=2, padding=1),
                paddle.static.nn.group_norm(x, 2), paddle.static.nn.instance_norm(x),
                paddle.static.nn.prelu(x, "channel")]
    exe.run(startup)
    x_value = np.random.RandomState(0).randn(2, 4, 9, 9).astype("float32")
    values = exe.run(main, feed={"x": x_value}, fetch_list=outs)
    paddle.static.save_inference_model(os.path.join(HERE, "ops"), [x], outs, exe, program=main)
    np.savez(os.path.join(HERE, "ops_io.npz"), x=x_value, **{f"out{i}": v for i, v in enumerate(values)})


def resize_pad(exe):
    """Paddle 2.x's bilinear_interp_v2, nearest_interp_v2 and trilinear_interp_v2 (F.interpolate with
    a scale factor or a size, corners aligned or not, NCHW and NHWC) and pad3d (F.pad of a 5-D tensor
    in every mode), each against Paddle's own kernels."""
    F = paddle.nn.functional
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3, 5, 4], "float32")
        v = paddle.static.data("v", [None, 2, 3, 4, 3], "float32")
        outs = [F.interpolate(x, scale_factor=1.5, mode="bilinear"),
                F.interpolate(x, scale_factor=[2.5, 1.7], mode="bilinear", align_mode=1),
                F.interpolate(x, size=[7, 3], mode="bilinear", align_corners=True),
                F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=[4, 9], mode="nearest"),
                F.interpolate(paddle.transpose(x, [0, 2, 3, 1]), scale_factor=1.3, mode="bilinear",
                              data_format="NHWC"),
                F.interpolate(v, scale_factor=[1.5, 2.0, 1.2], mode="trilinear", data_format="NCDHW"),
                F.pad(v, [1, 2, 0, 1, 2, 1], mode="constant", value=0.5, data_format="NCDHW"),
                F.pad(v, [2, 1, 1, 2, 1, 0], mode="reflect", data_format="NCDHW"),
                F.pad(v, [0, 3, 2, 0, 1, 1], mode="replicate", data_format="NCDHW"),
                F.pad(v, [1, 1, 2, 1, 0, 2], mode="circular", data_format="NCDHW"),
                F.pad(v, [1, 0, 0, 1, 1, 0], mode="reflect", data_format="NDHWC")]
    exe.run(startup)
    rng = np.random.RandomState(3)
    feed = {"x": rng.randn(2, 3, 5, 4).astype("float32"), "v": rng.randn(2, 2, 3, 4, 3).astype("float32")}
    values = exe.run(main, feed=feed, fetch_list=outs)
    paddle.static.save_inference_model(os.path.join(HERE, "resize_pad"), [x, v], outs, exe, program=main)
    np.savez(os.path.join(HERE, "resize_pad_io.npz"), **feed, **{f"out{i}": v for i, v in enumerate(values)})


def adam_state(exe):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        y = paddle.static.nn.fc(x, 3, weight_attr=paddle.ParamAttr(name="w"), bias_attr=paddle.ParamAttr(name="b"))
        loss = paddle.mean(y * y)
        paddle.optimizer.Adam(0.1).minimize(loss)
    exe.run(startup)
    exe.run(main, feed={"x": np.random.RandomState(2).randn(2, 4).astype("float32")}, fetch_list=[loss])
    paddle.static.save(main, os.path.join(HERE, "adam_state"))
    os.remove(os.path.join(HERE, "adam_state.pdmodel"))        # the training program: not read here
    scope = paddle.static.global_scope()
    names = [v.name for v in main.list_vars() if v.persistable and v.name not in ("feed", "fetch")]
    np.savez(os.path.join(HERE, "adam_state_values.npz"), **{n: np.array(scope.find_var(n).get_tensor()) for n in names})


if __name__ == "__main__":
    paddle.enable_static()
    paddle.seed(1)
    executor = paddle.static.Executor(paddle.CPUPlace())
    lenet(executor)
    mlp_relu6(executor)
    attention(executor)
    ops(executor)
    adam_state(executor)
    resize_pad(executor)
    print("wrote", sorted(f for f in os.listdir(HERE) if not f.endswith(".py")), "with paddle", paddle.__version__)
