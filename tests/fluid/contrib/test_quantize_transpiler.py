"""fluid.contrib.QuantizeTranspiler: a tiny conv + fc program trained after training_transpile learns
(its loss falls), its frozen inference program computes what the simulated one did and stays close to
the float program with the same weights, convert_to_int8 stores the weights as int8, and the fake
quantization ops pass gradients straight through."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.contrib import QuantizeTranspiler

_rng = np.random.default_rng(52)


def _data(n=32):
    """8x8 images, class 1 when the top half is the brighter one."""
    labels = _rng.integers(0, 2, (n, 1))
    images = _rng.normal(0, 1.0, (n, 1, 8, 8)).astype("float32")
    images[:, :, :4] += np.where(labels == 1, 0.5, 0.0)[:, :, None, None]
    images[:, :, 4:] += np.where(labels == 0, 0.5, 0.0)[:, :, None, None]
    return images, labels.astype("int64")


def _programs():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        image = fluid.data("image", [None, 1, 8, 8], "float32")
        label = fluid.data("label", [None, 1], "int64")
        conv = fluid.layers.conv2d(image, num_filters=4, filter_size=3, act="relu")
        logits = fluid.layers.fc(conv, size=2)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        test = main.clone(for_test=True)
        fluid.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return main, startup, test, loss, logits


@pytest.fixture(scope="module", params=["abs_max", "moving_average_abs_max", "range_abs_max"])
def trained(request):
    """(transpiler, scope, float test program, transpiled test program, losses, the logits' name, feed)."""
    main, startup, test, loss, logits = _programs()
    float_test = test.clone()
    t = QuantizeTranspiler(activation_quantize_type=request.param, window_size=16)
    t.training_transpile(main, startup)
    t.training_transpile(test, startup)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    images, labels = _data()
    with fluid.scope_guard(scope):
        exe.run(startup)
        losses = [float(exe.run(main, {"image": images, "label": labels}, [loss])[0].item()) for _ in range(15)]
    return t, scope, exe, float_test, test, losses, logits.name, {"image": images, "label": labels}


def test_training_transpile_inserts_fake_quantization(trained):
    t, _, _, _, test, _, _, _ = trained
    types = [op.type for op in test.global_block().ops]
    quant_type = "fake_quantize_" + t.activation_quantize_type
    # conv2d and mul: one weight (abs_max) and one activation (the chosen type) each
    assert types.count("fake_quantize_abs_max") == 2 + 2 * (quant_type == "fake_quantize_abs_max")
    assert types.count(quant_type) == 2 + 2 * (quant_type == "fake_quantize_abs_max")
    assert types.count("fake_dequantize_max_abs") == 4
    for op in test.global_block().ops:
        if op.type in ("conv2d", "mul"):
            assert all(n.endswith(".quantized.dequantized") for n in op.input_arg_names)


def test_the_loss_falls(trained):
    losses = trained[5]
    assert np.mean(losses[-3:]) < 0.7 * np.mean(losses[:3]), losses


def test_frozen_program_matches_the_simulated_and_the_float_one(trained):
    t, scope, exe, float_test, test, _, logits, feed = trained
    with fluid.scope_guard(scope):
        floats = exe.run(float_test, feed, [logits])[0]
        for _ in range(40):  # inference as users run it before freezing: the moving averages settle
            exe.run(test, feed, [logits])
        # the scales' state (moving averages, windows, the step counter) as the simulated run starts,
        # given back to the frozen run so that both quantize with the same scales
        state = {
            v.name: np.array(scope.find_var(v.name).get_tensor())
            for v in test.list_vars()
            if v.persistable and not v.name.endswith(".w_0") and scope.find_var(v.name) is not None
        }
        simulated = exe.run(test, feed, [logits])[0]
        frozen_program = test.clone()
        t.freeze_program(frozen_program, fluid.CPUPlace())
        for name, value in state.items():
            scope.find_var(name).get_tensor().set(value, fluid.CPUPlace())
        frozen = exe.run(frozen_program, feed, [logits])[0]
        weight = np.array(scope.find_var("conv2d_0.w_0").get_tensor())
    types = [op.type for op in frozen_program.global_block().ops]
    assert types.count("fake_dequantize_max_abs") == 2  # one after conv2d, one after mul
    assert np.array_equal(weight, np.round(weight)) and np.abs(weight).max() == 127
    np.testing.assert_allclose(frozen, simulated, rtol=1e-4, atol=1e-5)
    # int8 weights and activations: within a few percent of the logits' range of the float program
    assert np.abs(frozen - floats).max() < 0.03 * np.abs(floats).max(), np.abs(frozen - floats).max()
    assert (frozen.argmax(1) == floats.argmax(1)).mean() >= 0.95
    with fluid.scope_guard(scope):
        int8_program = frozen_program.clone()
        t.convert_to_int8(int8_program, fluid.CPUPlace())
        stored = np.array(scope.find_var("conv2d_0.w_0.int8").get_tensor())
    assert stored.dtype == np.int8 and np.array_equal(stored, weight.astype(np.int8))
    conv = next(op for op in int8_program.global_block().ops if op.type == "conv2d")
    assert "conv2d_0.w_0.int8" in conv.input_arg_names
    assert not int8_program.global_block().has_var("conv2d_0.w_0")


def test_freeze_program_folds_batch_norm_first_with_fuse_bn():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        image = fluid.data("image", [None, 1, 8, 8], "float32")
        label = fluid.data("label", [None, 1], "int64")
        normed = fluid.layers.batch_norm(fluid.layers.conv2d(image, num_filters=4, filter_size=3), act="relu")
        logits = fluid.layers.fc(normed, size=2)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        test = main.clone(for_test=True)
        fluid.optimizer.SGD(learning_rate=0.05).minimize(loss)
    float_test = test.clone()
    t = QuantizeTranspiler()
    t.training_transpile(main, startup)
    t.training_transpile(test, startup)
    images, labels = _data()
    feed = {"image": images, "label": labels}
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(5):
            exe.run(main, feed)
        floats = exe.run(float_test, feed, [logits])[0]
        t.freeze_program(test, fluid.CPUPlace(), fuse_bn=True)
        frozen = exe.run(test, feed, [logits])[0]
    types = [op.type for op in test.global_block().ops]
    assert "batch_norm" not in types and types.count("fake_dequantize_max_abs") == 2
    assert np.abs(frozen - floats).max() < 0.03 * np.abs(floats).max(), np.abs(frozen - floats).max()


_ST_OPS = {  # op -> (extra inputs: name -> value, extra outputs, attrs)
    "fake_quantize_abs_max": ({}, ["OutScale"], {"bit_length": 8}),
    "fake_quantize_range_abs_max": ({"InScale": 1.5}, ["OutScale"], {"is_test": True, "window_size": 4}),
    "fake_quantize_moving_average_abs_max": ({"InScale": 1.5}, ["OutScale"], {"is_test": True}),
    "fake_dequantize_max_abs": ({"Scale": 2.0}, [], {"max_range": 127.0}),
}


@pytest.mark.parametrize("op_type", sorted(_ST_OPS))
def test_fake_quantization_passes_the_gradient_straight_through(op_type):
    extra_in, extra_out, attrs = _ST_OPS[op_type]
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [3, 4], "float32")
        x.stop_gradient = False
        block = main.global_block()
        ins = {"X": x, **{k: fluid.layers.fill_constant([1], "float32", v) for k, v in extra_in.items()}}
        outs = {
            "Out": block.create_var(name="out", shape=[3, 4], dtype="float32"),
            **{k: block.create_var(name=k, shape=[1], dtype="float32") for k in extra_out},
        }
        block.append_op(op_type, ins, outs, attrs)
        weights = fluid.layers.assign(np.arange(12, dtype="float32").reshape(3, 4))
        loss = fluid.layers.reduce_sum(fluid.layers.elementwise_mul(outs["Out"], weights))
        fluid.backward.append_backward(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        (grad,) = exe.run(main, {"x": _rng.normal(size=(3, 4)).astype("float32")}, ["x@GRAD"])
    np.testing.assert_array_equal(grad, np.arange(12, dtype="float32").reshape(3, 4))


def test_unknown_quantize_type_is_a_value_error():
    with pytest.raises(ValueError, match="weight_quantize_type"):
        QuantizeTranspiler(weight_quantize_type="max")
