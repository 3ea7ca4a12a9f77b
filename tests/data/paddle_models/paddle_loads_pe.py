"""The other direction of make_paddle_models.py: pe saves inference models (``save_inference_model``,
Fluid's formats), and real PaddlePaddle loads them and must compute what pe computed.

    .venv/bin/python tests/data/paddle_models/paddle_loads_pe.py save /tmp/pe_models
    /tmp/pd/bin/python tests/data/paddle_models/paddle_loads_pe.py check /tmp/pe_models

(``/tmp/pd`` as in make_paddle_models.py.) ``check`` prints each model's largest difference from
pe's outputs and fails above 1e-5. Each model is saved twice: one parameter file per variable, and
all in one ``params`` file. Nothing here is committed output: the check runs both sides afresh.
"""
import os
import sys

import numpy as np


def models(fluid):
    def mlp():
        h = fluid.layers.fc(fluid.data("x", [None, 784]), 64, act="relu")
        return ["x"], [fluid.layers.fc(fluid.layers.fc(h, 32, act="tanh"), 10, act="softmax")]

    def lenet():
        c = fluid.layers.batch_norm(fluid.layers.conv2d(fluid.data("img", [None, 1, 28, 28]), 6, 5, act="relu"))
        c = fluid.layers.conv2d(fluid.layers.pool2d(c, 2, pool_stride=2), 16, 5, padding=1, act="sigmoid")
        f = fluid.layers.fc(fluid.layers.dropout(fluid.layers.pool2d(c, 2, pool_stride=2, pool_type="avg"), 0.3), 10)
        return ["img"], [fluid.layers.softmax(f), fluid.layers.scale(f, scale=0.1, bias=1.5)]

    def tensor_ops():
        x = fluid.data("x", [None, 6])
        z = fluid.layers.reduce_mean(fluid.layers.transpose(fluid.layers.reshape(x, [-1, 2, 3]), [0, 2, 1]), dim=1)
        w = fluid.layers.concat([z, fluid.layers.relu6(z)], axis=1)
        s = fluid.layers.slice(w, axes=[1], starts=[1], ends=[3])
        e = fluid.layers.elementwise_max(fluid.layers.exp(s), fluid.layers.fill_constant([1], "float32", 1.2))
        return ["x"], [w, e, fluid.layers.cast(fluid.layers.argmax(w, axis=1), "float32"), fluid.layers.layer_norm(x),
                       fluid.layers.leaky_relu(x, 0.1), fluid.layers.clip(x, -0.5, 0.5)]

    def sequences():
        emb = fluid.layers.embedding(fluid.data("words", [None, 1], dtype="int64", lod_level=1), [50, 8])
        conv = fluid.layers.sequence_conv(emb, 6, 3, act="tanh")
        return ["words"], [fluid.layers.fc(fluid.layers.sequence_pool(conv, "max"), 3, act="softmax")]

    rng = np.random.default_rng(0)
    words = rng.integers(0, 50, (9, 1)).astype("int64")
    return {"mlp": (mlp, {"x": rng.normal(size=(4, 784)).astype("float32")}, None),
            "lenet": (lenet, {"img": rng.normal(size=(3, 1, 28, 28)).astype("float32")}, None),
            "tensor_ops": (tensor_ops, {"x": rng.normal(size=(5, 6)).astype("float32")}, None),
            "sequences": (sequences, {"words": words}, {"words": [[2, 4, 3]]})}


def save(out):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    import pe_cli.fluid as fluid
    from pe_cli.paddle import static
    for name, (build, feed, lods) in models(fluid).items():
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            feeds, outs = build()
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        fed = {k: fluid.create_lod_tensor(v, lods[k], fluid.CPUPlace()) if lods and k in lods else v
               for k, v in feed.items()}
        want = exe.run(main.clone(for_test=True), feed=fed, fetch_list=outs, scope=scope)
        with fluid.scope_guard(scope):
            fluid.io.save_inference_model(os.path.join(out, name), feeds, outs, exe, main)
            fluid.io.save_inference_model(os.path.join(out, name + "_combined"), feeds, outs, exe, main,
                                          params_filename="params")
            static.save_inference_model(os.path.join(out, name + "_prefix", "model"),
                                        [main.global_block().var(f) for f in feeds], outs, exe, program=main)
        np.savez(os.path.join(out, name + ".npz"), *[np.asarray(w) for w in want])
        print("saved", name)


def check(out):
    import paddle
    from paddle import base
    paddle.enable_static()
    exe, worst = paddle.static.Executor(paddle.CPUPlace()), 0.0
    for name, (_, feed, lods) in models(None).items():
        want = np.load(os.path.join(out, name + ".npz"))
        for d, kw in ((name, {"model_filename": "__model__"}),
                      (name + "_combined", {"model_filename": "__model__", "params_filename": "params"}),
                      (name + "_prefix/model", {})):
            with paddle.static.scope_guard(paddle.static.Scope()):
                program, feeds, fetches = paddle.static.load_inference_model(os.path.join(out, d), exe, **kw)
                fed = {k: base.create_lod_tensor(v, lods[k], paddle.CPUPlace()) if lods and k in lods else v
                       for k, v in feed.items()}
                got = exe.run(program, feed=fed, fetch_list=fetches)
            diff = max(float(np.max(np.abs(np.asarray(g) - want[f"arr_{i}"]))) for i, g in enumerate(got))
            worst = max(worst, diff)
            print(f"{d}: Paddle {paddle.__version__} computes pe's {len(got)} outputs within {diff:.2g}")
    sys.exit(0 if worst <= 1e-5 else 1)


if __name__ == "__main__":
    {"save": save, "check": check}[sys.argv[1]](sys.argv[2])
