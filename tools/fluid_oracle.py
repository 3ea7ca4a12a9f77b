"""Fluid 1.8.5 as the oracle: runs small recorded programs on Fluid and writes what it did (values,
trajectories, gradients, exception types) to tests/data/fluid_oracle/*.json. tests/fluid/
test_fluid_oracle.py replays the same programs (this module's functions, given pe's ``fluid``) on pe
with the same initial weights and batches, and compares; CI never needs Fluid.

    /work/fluid185/bin/python tools/fluid_oracle.py      # Python 3.8 with paddlepaddle==1.8.5

Nothing here imports paddle or pe at load time: every program takes the ``fluid`` module to build
with, so the same code runs on both engines.
"""

import json
import os
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "fluid_oracle")
LSTM_STEPS, ADAM_STEPS = 4, 5


# -- programs ------------------------------------------------------------------------------------
def lstm_program(fluid, hidden, dtype="float32", train=True):
    """x (LoD sequences of 3 features) -> fc to 4*hidden -> dynamic_lstm -> sum-pool -> mean: the loss
    (then SGD's backward and update, unless ``train`` is False)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [3], dtype=dtype, lod_level=1)
        proj = fluid.layers.fc(
            x, 4 * hidden, param_attr=fluid.ParamAttr(name="fc_w"), bias_attr=fluid.ParamAttr(name="fc_b")
        )
        h, _ = fluid.layers.dynamic_lstm(
            proj,
            4 * hidden,
            param_attr=fluid.ParamAttr(name="lstm_w"),
            bias_attr=fluid.ParamAttr(name="lstm_b"),
            use_peepholes=False,
            dtype=dtype,
        )
        loss = fluid.layers.mean(_sum_pool(fluid, h))
        if train:
            fluid.optimizer.SGD(0.5).minimize(loss)
    return main, startup, loss


def _sum_pool(fluid, h):
    """sequence_pool(h, "sum"); of a float64 h by its op (Fluid 1.8's layer takes float32 only, its op
    float64 too: the finite differences run in float64)."""
    # (Fluid's VarType refuses to be compared with a str: the enum first)
    if h.dtype == fluid.core.VarDesc.VarType.FP32 or (isinstance(h.dtype, str) and h.dtype == "float32"):
        return fluid.layers.sequence_pool(h, "sum")
    block = fluid.default_main_program().current_block()
    out = block.create_var(name=h.name + ".pooled", dtype=h.dtype, shape=[-1, h.shape[-1]])
    index = block.create_var(name=h.name + ".pool_index", dtype="int32")
    block.append_op(
        type="sequence_pool",
        inputs={"X": [h]},
        outputs={"Out": [out], "MaxIndex": [index]},
        attrs={"pooltype": "SUM", "is_test": False, "pad_value": 0.0},
    )
    return out


def lstm_data(hidden, seed=7):
    rng = np.random.RandomState(seed + hidden)
    weights = {
        "fc_w": rng.uniform(-0.5, 0.5, (3, 4 * hidden)),
        "fc_b": rng.uniform(-0.5, 0.5, (4 * hidden,)),
        "lstm_w": rng.uniform(-0.5, 0.5, (hidden, 4 * hidden)),
        "lstm_b": rng.uniform(-0.5, 0.5, (1, 4 * hidden)),
    }
    batches = [rng.uniform(-1, 1, (5, 3)) for _ in range(LSTM_STEPS)]
    return weights, batches, [[2, 3]]


def mlp_program(fluid):
    """fc(4 -> 8, relu) -> fc(8 -> 3, softmax) -> cross_entropy -> mean, trained with Adam."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [4])
        label = fluid.layers.data("label", [1], dtype="int64")
        h = fluid.layers.fc(
            x, 8, act="relu", param_attr=fluid.ParamAttr(name="w1"), bias_attr=fluid.ParamAttr(name="b1")
        )
        prob = fluid.layers.fc(
            h, 3, act="softmax", param_attr=fluid.ParamAttr(name="w2"), bias_attr=fluid.ParamAttr(name="b2")
        )
        loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
        fluid.optimizer.Adam(0.05).minimize(loss)
    return main, startup, loss


def mlp_data(seed=3):
    rng = np.random.RandomState(seed)
    weights = {
        "w1": rng.uniform(-0.5, 0.5, (4, 8)),
        "b1": np.zeros(8),
        "w2": rng.uniform(-0.5, 0.5, (8, 3)),
        "b2": np.zeros(3),
    }
    batches = [(rng.uniform(-1, 1, (6, 4)), rng.randint(0, 3, (6, 1))) for _ in range(ADAM_STEPS)]
    return weights, batches


def set_weights(fluid, scope, weights, dtype="float32"):
    for name, value in weights.items():
        scope.find_var(name).get_tensor().set(np.asarray(value, dtype), fluid.CPUPlace())


def run_lstm(fluid, hidden, dtype="float32"):
    """{"loss": [per step], "grads": {param: first step's gradient}}, trained on lstm_data."""
    main, startup, loss = lstm_program(fluid, hidden, dtype)
    weights, batches, lod = lstm_data(hidden)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    names = sorted(weights)
    with fluid.scope_guard(scope):
        exe.run(startup)
        set_weights(fluid, scope, weights, dtype)
        out = {"loss": [], "grads": {}}
        for step, batch in enumerate(batches):
            x = fluid.create_lod_tensor(batch.astype(dtype), lod, fluid.CPUPlace())
            values = exe.run(main, feed={"x": x}, fetch_list=[loss] + [n + "@GRAD" for n in names])
            out["loss"].append(float(np.asarray(values[0]).reshape(-1)[0]))
            if step == 0:
                out["grads"] = {n: np.asarray(v).tolist() for n, v in zip(names, values[1:])}
    return out


def run_mlp(fluid):
    main, startup, loss = mlp_program(fluid)
    weights, batches = mlp_data()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        set_weights(fluid, scope, weights)
        losses = [
            float(
                np.asarray(
                    exe.run(main, feed={"x": x.astype("float32"), "label": y.astype("int64")}, fetch_list=[loss])[0]
                ).reshape(-1)[0]
            )
            for x, y in batches
        ]
        final = {n: np.asarray(scope.find_var(n).get_tensor()).tolist() for n in sorted(weights)}
    return {"loss": losses, "final_weights": final}


def run_bilinear(fluid):
    """The [1, 1, 4, 4] kernel initializer.Bilinear makes."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        w = fluid.layers.create_parameter([1, 1, 4, 4], "float32", default_initializer=fluid.initializer.Bilinear())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        return np.array(scope.find_var(w.name).get_tensor()).tolist()


def run_sigmoid_bits(fluid):
    """The float32 bits of fluid.layers.sigmoid of [11, 17] values in [-8, 8] (187: 23 eights and a tail
    of 3, which Fluid's Eigen computes apart)."""
    x = np.random.RandomState(123).uniform(-8, 8, (11, 17)).astype("float32")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        y = fluid.layers.sigmoid(fluid.data("x", [11, 17], "float32"))
    out = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x}, fetch_list=[y], scope=fluid.Scope())[0]
    return np.asarray(out, "float32").view(np.int32).reshape(-1).tolist()


def run_tanh_bits(fluid):
    """The float32 bits of fluid.layers.tanh of 1,003 values (125 eights and a tail of 3, which Eigen computes
    apart): uniform in [-12, 12] and [-1, 1], tiny ones, both zeros, and the ends of its clamp at +-9."""
    rng = np.random.RandomState(11)
    edges = [0.0, -0.0, 9.0, -9.0, 8.999, 9.001, 1e-30, -1e-8, 0.0004, 20.0, -88.0]
    x = np.concatenate([rng.uniform(-12, 12, 600), rng.uniform(-1, 1, 300), rng.uniform(-1e-3, 1e-3, 92), edges])
    x = x.astype("float32")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        y = fluid.layers.tanh(fluid.data("x", [x.size], "float32"))
    out = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x}, fetch_list=[y], scope=fluid.Scope())[0]
    return np.asarray(out, "float32").view(np.int32).reshape(-1).tolist()


def run_row_conv_bits(fluid):
    """The float32 bits of fluid.layers.row_conv over two sequences (lengths 5 and 3, 7 features) with a
    future context of 3 (Fluid's sums in float32, from the first step)."""
    rng = np.random.RandomState(7)
    x, w = rng.uniform(-1, 1, (8, 7)).astype("float32"), rng.uniform(-1, 1, (4, 7)).astype("float32")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        data = fluid.data("x", [-1, 7], "float32", lod_level=1)
        out = fluid.layers.row_conv(
            data, 3, param_attr=fluid.ParamAttr(name="w", initializer=fluid.initializer.NumpyArrayInitializer(w))
        )
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        got = exe.run(
            main,
            feed={"x": fluid.create_lod_tensor(x, [[5, 3]], fluid.CPUPlace())},
            fetch_list=[out],
            return_numpy=False,
        )[0]
    return np.array(got).astype("float32").view(np.int32).reshape(-1).tolist()


DETECTION_BATCHES = [
    # per batch: detections per image (label, score, box) and ground truth per image (label, difficult, box)
    (
        [
            [[1, 0.9, 0.1, 0.1, 0.5, 0.5], [1, 0.8, 0.12, 0.1, 0.5, 0.52], [2, 0.7, 0.6, 0.6, 0.9, 0.9]],
            [[2, 0.6, 0.0, 0.0, 0.3, 0.3], [1, 0.3, 0.5, 0.5, 0.8, 0.8]],
        ],
        [
            [[1, 0, 0.1, 0.1, 0.5, 0.5], [2, 0, 0.6, 0.62, 0.9, 0.9]],
            [[2, 1, 0.0, 0.05, 0.3, 0.3], [1, 0, 0.2, 0.2, 0.4, 0.4]],
        ],
    ),
    (
        [[[1, 0.95, 0.3, 0.3, 0.6, 0.6], [2, 0.4, 0.1, 0.1, 0.2, 0.2]]],
        [[[1, 0, 0.3, 0.32, 0.6, 0.6], [2, 0, 0.5, 0.5, 0.7, 0.7], [1, 0, 0.0, 0.0, 0.1, 0.1]]],
    ),
]


def run_detection_map(fluid, ap_version, evaluate_difficult):
    """[(this batch's mAP, accumulated mAP)] of metrics.DetectionMAP over DETECTION_BATCHES (3 classes)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        det = fluid.layers.data("det", [6], lod_level=1)
        gt_label = fluid.layers.data("gt_label", [1], lod_level=1)
        difficult = fluid.layers.data("difficult", [1], lod_level=1)
        gt_box = fluid.layers.data("gt_box", [4], lod_level=1)
        metric = fluid.metrics.DetectionMAP(
            det,
            gt_label,
            gt_box,
            difficult,
            class_num=3,
            overlap_threshold=0.5,
            evaluate_difficult=evaluate_difficult,
            ap_version=ap_version,
        )
        cur, accum = metric.get_map_var()
    exe, scope, place = fluid.Executor(fluid.CPUPlace()), fluid.Scope(), fluid.CPUPlace()
    maps = []
    with fluid.scope_guard(scope):
        exe.run(startup)
        metric.reset(exe)
        for dets, gts in DETECTION_BATCHES:

            def lod(groups, cols):
                rows = np.array([r for g in groups for r in g], "float32")[:, cols]
                return fluid.create_lod_tensor(rows, [[len(g) for g in groups]], place)

            feed = {
                "det": lod(dets, slice(0, 6)),
                "gt_label": lod(gts, slice(0, 1)),
                "difficult": lod(gts, slice(1, 2)),
                "gt_box": lod(gts, slice(2, 6)),
            }
            values = exe.run(main, feed=feed, fetch_list=[cur, accum])
            maps.append([round(float(np.asarray(v).reshape(-1)[0]), 6) for v in values])
    return maps


# -- bad inputs: what each raises ----------------------------------------------------------------
def _in_program(fluid, build):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        return build()


def _run_one(fluid, build, feed):
    """Builds ``build()`` in a fresh program and runs it once on ``feed``: its values as lists."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fetch = build()
    values = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=list(fetch), scope=fluid.Scope())
    return [np.round(np.asarray(v, "float64"), 5).tolist() for v in values]


def case_cross_entropy_flat_label(fluid):
    """cross_entropy with a [-1] label (no trailing 1): Fluid takes it; the loss has the label's shape."""

    def build():
        prob = fluid.data("p", [-1, 3])
        label = fluid.data("l", [-1], dtype="int64")
        return [fluid.layers.cross_entropy(prob, label)]

    return _run_one(
        fluid, build, {"p": np.array([[0.2, 0.3, 0.5], [0.1, 0.8, 0.1]], "float32"), "l": np.array([2, 1], "int64")}
    )


def case_invalid_recursive_lengths(fluid):
    """set_recursive_sequence_lengths whose lengths do not add up to the rows: Fluid takes them and
    has_valid_recursive_sequence_lengths() says False."""
    t = fluid.LoDTensor()
    t.set(np.zeros((3, 1), "float32"), fluid.CPUPlace())
    t.set_recursive_sequence_lengths([[2, 2]])
    return bool(t.has_valid_recursive_sequence_lengths())


def case_fc_on_numpy(fluid):
    _in_program(fluid, lambda: fluid.layers.fc(np.zeros((2, 3), "float32"), 2))


def case_mean_on_numpy(fluid):
    _in_program(fluid, lambda: fluid.layers.mean(np.zeros((2, 3), "float32")))


def case_reshape_two_unknowns(fluid):
    _in_program(fluid, lambda: fluid.layers.reshape(fluid.data("x", [-1, 6]), shape=[-1, -1]))


def case_concat_not_a_list(fluid):
    _in_program(fluid, lambda: fluid.layers.concat(np.zeros((2, 3), "float32")))


def case_one_hot_float_ids(fluid):
    """fluid.one_hot of float32 ids: Fluid builds it and fails when it runs (no float kernel); pe too."""
    return _run_one(
        fluid,
        lambda: [fluid.one_hot(fluid.data("x", [-1, 1], dtype="float32"), 4)],
        {"x": np.array([[0.0], [2.0]], "float32")},
    )


def case_feed_wrong_shape(fluid):
    """fluid.data declares [-1, 4]; a [2, 5] array is fed."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 4])
        y = fluid.layers.scale(x, 2.0)
    fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": np.zeros((2, 5), "float32")}, fetch_list=[y], scope=fluid.Scope()
    )


def case_softmax_with_cross_entropy_float_label(fluid):
    """Hard labels fed as float32: Fluid builds it and fails when it runs (EnforceNotMet); pe says so
    when it builds."""

    def build():
        logits = fluid.data("z", [-1, 3])
        label = fluid.data("l", [-1, 1], dtype="float32")
        return [fluid.layers.softmax_with_cross_entropy(logits, label)]

    return _run_one(fluid, build, {"z": np.zeros((2, 3), "float32"), "l": np.array([[2], [1]], "float32")})


def case_uniform_random_bad_shape(fluid):
    _in_program(fluid, lambda: fluid.layers.uniform_random(shape="3"))


CASES = [
    case_cross_entropy_flat_label,
    case_invalid_recursive_lengths,
    case_fc_on_numpy,
    case_mean_on_numpy,
    case_reshape_two_unknowns,
    case_concat_not_a_list,
    case_one_hot_float_ids,
    case_feed_wrong_shape,
    case_softmax_with_cross_entropy_float_label,
    case_uniform_random_bad_shape,
]
KINDS = (AssertionError, TypeError, ValueError, NotImplementedError, IndexError, KeyError)


def outcome(case, fluid):
    """{"raises": the builtin kind of the exception (or its class name), or null; "returns": the value}."""
    try:
        value = case(fluid)
    except Exception as e:  # noqa: BLE001 -- recording what is raised is the point
        kind = next((k.__name__ for k in KINDS if isinstance(e, k)), type(e).__name__)
        return {"raises": kind, "message": str(e).strip().splitlines()[0][:200] if str(e).strip() else ""}
    return {"raises": None, "returns": value}


def _write(name, data):
    path = os.path.join(OUT, name)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def main():
    import paddle
    import paddle.fluid as fluid

    os.makedirs(OUT, exist_ok=True)
    source = {
        "engine": f"paddlepaddle {paddle.__version__}",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "recorded_by": "tools/fluid_oracle.py",
    }
    _write("lstm.json", dict(source, runs={str(h): run_lstm(fluid, h) for h in (6, 8)}))
    _write("mlp_adam.json", dict(source, run=run_mlp(fluid)))
    _write("bilinear.json", dict(source, kernel=run_bilinear(fluid)))
    _write(
        "detection_map.json",
        dict(
            source,
            maps={
                f"{ap}-{difficult}": run_detection_map(fluid, ap, difficult)
                for ap in ("integral", "11point")
                for difficult in (True, False)
            },
        ),
    )
    _write("exceptions.json", dict(source, cases={c.__name__: outcome(c, fluid) for c in CASES}))
    _write("sigmoid.json", dict(source, bits=run_sigmoid_bits(fluid)))
    _write("row_conv.json", dict(source, bits=run_row_conv_bits(fluid)))
    _write("tanh.json", dict(source, bits=run_tanh_bits(fluid)))
    print(
        f"wrote {OUT}/lstm.json, mlp_adam.json, bilinear.json, detection_map.json, exceptions.json, sigmoid.json, "
        "row_conv.json, tanh.json"
    )


if __name__ == "__main__":
    main()
