"""Fluid 1.8.5 as the oracle of contrib.slim's quantization: runs small programs through the IrGraph
passes (quantization-aware training: QuantizationTransformPass, AddQuantDequantPass, the out-scale
passes, a few training steps, QuantizationFreezePass, ConvertToInt8Pass, TransformForMobilePass) and
writes what they made and computed to tests/data/fluid_oracle/slim_quant.json: the ops the passes
inserted with their attributes, the losses, the scales learned, the test program's outputs before and
after freezing, the frozen and int8 weights. tests/fluid/contrib/test_slim_quant_oracle.py runs the
same code on pe's ``fluid`` with the same starting weights and batches and compares.

    /work/fluid185/bin/python tools/slim_quant_oracle.py      # Python 3.8 with paddlepaddle==1.8.5

Nothing here imports paddle or pe at load time: ``run(fluid, name)`` takes the module to build with.
"""

import importlib
import json
import os
import re
import sys

import numpy as np

OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "fluid_oracle", "slim_quant.json"
)
STEPS, BATCH = 3, 4
# activation quantize type, weight quantize type, with AddQuantDequantPass and the out-scale passes
CASES = {
    "abs_max": ("abs_max", "abs_max", False),
    "moving_average_channel_wise": ("moving_average_abs_max", "channel_wise_abs_max", True),
    "range_abs_max": ("range_abs_max", "abs_max", False),
}
_QUANT_OP_ATTRS = ("bit_length", "moving_rate", "is_test", "window_size", "max_range", "quant_bits", "step")
_MARKS = ("quantization_type", "activation_bits", "out_threshold", "skip_quant")  # on the ops quantized
# names the passes draw from unique_name (Fluid's order of drawing them is its set order): kept apart
_DRAWN = re.compile(
    r"^(state|accum|scales|channel_scale|scale_state@|scale_accum@|quant_dequant\.state|"
    r"quant_dequant\.accum)_\d+$"
)


def net(fluid, is_test):
    """image [1, 6, 6] -> conv2d(2 filters 3x3, relu) -> max pool 2 -> fc(3, softmax): cross entropy's mean
    (and SGD's backward and update unless ``is_test``)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        image = fluid.layers.data("image", [1, 6, 6])
        label = fluid.layers.data("label", [1], dtype="int64")
        conv = fluid.layers.conv2d(image, 2, 3, act="relu", param_attr="conv_w", bias_attr="conv_b")
        pool = fluid.layers.pool2d(conv, 2, "max", 2)
        pred = fluid.layers.fc(pool, 3, act="softmax", param_attr="fc_w", bias_attr="fc_b")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, label))
        if not is_test:
            fluid.optimizer.SGD(0.5).minimize(loss)
    return main, startup, loss, pred


def data():
    rng = np.random.RandomState(7)
    weights = {
        "conv_w": rng.uniform(-0.5, 0.5, (2, 1, 3, 3)),
        "conv_b": rng.uniform(-0.1, 0.1, (2,)),
        "fc_w": rng.uniform(-0.5, 0.5, (8, 3)),
        "fc_b": np.zeros(3),
    }
    batches = [(rng.uniform(-1, 1, (BATCH, 1, 6, 6)), rng.randint(0, 3, (BATCH, 1))) for _ in range(STEPS + 1)]
    return (
        {k: v.astype("float32") for k, v in weights.items()},
        [{"image": x.astype("float32"), "label": y.astype("int64")} for x, y in batches],
    )


def _op_record(op):
    """An inserted or quantized op: type, slots (drawn names as their prefix) and recorded attributes."""

    def slots(names_of, slot_names):
        return {s: [_DRAWN.sub(r"\1_N", n) for n in names_of(s)] for s in sorted(slot_names) if names_of(s)}

    desc = op.op()
    recorded = (
        _QUANT_OP_ATTRS
        if "quant" in op.name() or op.name() in ("increment", "moving_average_abs_max_scale")
        else _MARKS
    )
    attrs = {a: desc.attr(a) for a in recorded if desc.has_attr(a)}
    return {
        "type": op.name(),
        "inputs": slots(desc.input, desc.input_names()),
        "outputs": slots(desc.output, desc.output_names()),
        "attrs": {k: (round(v, 6) if isinstance(v, float) else v) for k, v in sorted(attrs.items())},
    }


def _graph_record(graph):
    """The records of the quantization ops and the ops they quantize, sorted."""
    ops = [
        _op_record(op)
        for op in graph.all_op_nodes()
        if "quant" in op.name()
        or op.name() in ("increment", "moving_average_abs_max_scale")
        or op.op().has_attr("quantization_type")
        or op.op().has_attr("out_threshold")
    ]
    return sorted(ops, key=lambda r: json.dumps(r, sort_keys=True))


def _values(scope, names):
    return {n: np.array(scope.find_var(n).get_tensor()).tolist() for n in sorted(names)}


def _scale_names(graph):
    return [n.name() for n in graph.all_persistable_nodes() if n.name().endswith((".scale", "@scale"))]


def _transform(fluid, slim, scope, place, case, main_graph, test_graph):
    act, weight, more = CASES[case]
    transform = slim.QuantizationTransformPass(
        scope=scope, place=place, activation_quantize_type=act, weight_quantize_type=weight, window_size=8
    )
    transform.apply(main_graph)
    transform.apply(test_graph)
    if more:
        add = slim.AddQuantDequantPass(scope=scope, place=place, quantizable_op_type=["pool2d"])
        add.apply(main_graph)
        add.apply(test_graph)
        slim.OutScaleForTrainingPass(scope=scope, place=place).apply(main_graph)


def run(fluid, case):
    """What the passes make of ``net`` and compute with it, for CASES[case]."""
    slim = importlib.import_module(fluid.__name__ + ".contrib.slim.quantization")
    IrGraph, core = fluid.framework.IrGraph, fluid.core
    weights, batches = data()
    place, scope, exe = fluid.CPUPlace(), fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    main, startup, loss, _ = net(fluid, False)
    test, _, _, pred = net(fluid, True)
    test = test.clone(for_test=True)
    with fluid.scope_guard(scope):
        exe.run(startup)
        for name, value in weights.items():
            scope.find_var(name).get_tensor().set(value, place)
    main_graph, test_graph = IrGraph(core.Graph(main.desc), for_test=False), IrGraph(core.Graph(test.desc), True)
    _transform(fluid, slim, scope, place, case, main_graph, test_graph)
    out = {"train_ops": _graph_record(main_graph), "test_ops": _graph_record(test_graph)}
    build = fluid.BuildStrategy()
    build.memory_optimize, build.enable_inplace = False, False
    binary = fluid.CompiledProgram(main_graph.graph).with_data_parallel(loss_name=loss.name, build_strategy=build)
    quantized_test = test_graph.to_program()
    with fluid.scope_guard(scope):
        out["losses"] = [float(exe.run(binary, feed=b, fetch_list=[loss.name])[0][0]) for b in batches[:STEPS]]
        out["scales"] = _values(scope, _scale_names(main_graph))
        out["pred_quantized"] = exe.run(quantized_test, feed=batches[-1], fetch_list=[pred.name])[0].tolist()
    if CASES[case][2]:
        slim.OutScaleForInferencePass(scope=scope).apply(test_graph)
    slim.QuantizationFreezePass(scope=scope, place=place, weight_quantize_type=CASES[case][1]).apply(test_graph)
    out["frozen_ops"] = _graph_record(test_graph)
    frozen = test_graph.to_program()
    with fluid.scope_guard(scope):
        out["pred_frozen"] = exe.run(frozen, feed=batches[-1], fetch_list=[pred.name])[0].tolist()
    out["frozen_weights"] = _values(scope, ["conv_w", "fc_w"])
    slim.ConvertToInt8Pass(scope=scope, place=place).apply(test_graph)
    out["int8_weights"] = _values(scope, ["conv_w.int8", "fc_w.int8"])
    out["int8_ops"] = _graph_record(test_graph)
    slim.TransformForMobilePass().apply(test_graph)
    out["mobile_op_types"] = sorted(op.name() for op in test_graph.all_op_nodes())
    return out


# PostTrainingQuantization's algorithms; WeightQuantization's types
PTQ_ALGOS = ["KL", "abs_max", "min_max"]
WEIGHT_TYPES = ["abs_max", "channel_wise_abs_max"]


def _saved_model(fluid, exe, scope, directory):
    """``net``'s test program with the starting weights, saved as an inference model in ``directory``."""
    weights, _ = data()
    test, startup, _, pred = net(fluid, True)
    with fluid.scope_guard(scope):
        exe.run(startup)
        for name, value in weights.items():
            scope.find_var(name).get_tensor().set(value, fluid.CPUPlace())
        fluid.io.save_inference_model(directory, ["image"], [pred], exe, main_program=test)
    return pred.name


def _ours(name):
    """Not the scale op Fluid's save_inference_model appends to each target (save_infer_model/scale_N)."""
    return not name.startswith("save_infer_model/")


def _program_record(program):
    """The ops' types, slots and notes (thresholds, quantization types, inputs' ranges) in order, but
    the feed and fetch ops and the scale op of save_inference_model (how an engine saves a model)."""
    out = []
    for op in program.global_block().ops:
        if op.type in ("feed", "fetch") or not all(_ours(n) for n in op.output_arg_names):
            continue
        notes = {
            a: op.attr(a)
            for a in op.attr_names
            if a in _MARKS + ("out_min", "out_max", "quantize_weight_bits")
            or a.endswith((".min", ".max", "_quant_scale"))
        }
        out.append(
            {
                "type": op.type,
                "inputs": {s: op.input(s) for s in sorted(op.input_names) if op.input(s)},
                "notes": {k: (np.array(v).tolist()) for k, v in sorted(notes.items())},
            }
        )
    return out


def run_ptq(fluid, algo, directory):
    """PostTrainingQuantization of the saved ``net`` on 2 batches of 4 samples: its thresholds, the
    quantized program, its output on a batch, the frozen weights, and the saved model's output."""
    slim = importlib.import_module(fluid.__name__ + ".contrib.slim.quantization")
    _, batches = data()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    _saved_model(fluid, exe, scope, os.path.join(directory, "fp32"))
    samples = [(x,) for b in batches[:2] for x in b["image"]]
    with fluid.scope_guard(scope):
        ptq = slim.PostTrainingQuantization(
            executor=exe,
            model_dir=os.path.join(directory, "fp32"),
            sample_generator=lambda: iter(samples),
            batch_size=4,
            batch_nums=2,
            algo=algo,
            quantizable_op_type=["conv2d", "mul", "pool2d"],
        )
        program = ptq.quantize()
        feed = {"image": batches[-1]["image"]}
        out = {
            "program": _program_record(program),
            "pred": exe.run(program, feed=feed, fetch_list=ptq._fetch_list)[0].tolist(),
            "weights": _values(scope, ["conv_w", "fc_w"]),
        }
        thresholds = {
            "KL": ptq._quantized_var_kl_threshold,
            "abs_max": ptq._quantized_var_abs_max,
            "min_max": {"min": ptq._quantized_var_min, "max": ptq._quantized_var_max},
        }[algo]
        out["thresholds"] = json.loads(json.dumps(thresholds, default=lambda v: np.array(v).tolist()))
        for table in (out["thresholds"]["min"], out["thresholds"]["max"]) if algo == "min_max" else [out["thresholds"]]:
            for name in [n for n in table if not _ours(n)]:
                del table[name]
        ptq.save_quantized_model(os.path.join(directory, "int8"))
    with fluid.scope_guard(fluid.Scope()):
        loaded, feeds, fetches = fluid.io.load_inference_model(os.path.join(directory, "int8"), exe)
        out["saved_pred"] = exe.run(loaded, feed=feed, fetch_list=fetches)[0].tolist()
    return out


def run_weight_quantization(fluid, weight_type, directory):
    """WeightQuantization of the saved ``net`` (8 bits): the int8 weights it leaves in the scope and
    saves, and with ``generate_test_model``, the test model's notes (the scales), weights and output."""
    slim = importlib.import_module(fluid.__name__ + ".contrib.slim.quantization")
    _, batches = data()
    exe, out = fluid.Executor(fluid.CPUPlace()), {}
    for test_model in (False, True):
        with fluid.scope_guard(fluid.Scope()):
            scope = fluid.global_scope()
            _saved_model(fluid, exe, scope, os.path.join(directory, "fp32"))
            slim.WeightQuantization(os.path.join(directory, "fp32")).quantize_weight_to_int(
                os.path.join(directory, str(test_model)),
                weight_quantize_type=weight_type,
                generate_test_model=test_model,
            )
            if not test_model:
                out["int8"] = {
                    n: {"dtype": str(v.dtype), "values": v.tolist()}
                    for n, v in ((n, np.array(scope.find_var(n).get_tensor())) for n in ("conv_w", "fc_w"))
                }
        if test_model:
            with fluid.scope_guard(fluid.Scope()):
                program, _, fetches = fluid.io.load_inference_model(os.path.join(directory, "True", "test_model"), exe)
                out["test_model"] = {
                    "program": _program_record(program),
                    "weights": _values(fluid.global_scope(), ["conv_w", "fc_w"]),
                    "pred": exe.run(program, feed={"image": batches[-1]["image"]}, fetch_list=fetches)[0].tolist(),
                }
    return out


def main():
    import paddle
    import paddle.fluid as fluid

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    import tempfile

    result = {"engine": f"paddlepaddle {paddle.__version__}", "cases": {c: run(fluid, c) for c in CASES}}
    with tempfile.TemporaryDirectory() as tmp:
        result["ptq"] = {a: run_ptq(fluid, a, os.path.join(tmp, "ptq_" + a)) for a in PTQ_ALGOS}
        result["weight"] = {t: run_weight_quantization(fluid, t, os.path.join(tmp, "w_" + t)) for t in WEIGHT_TYPES}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
