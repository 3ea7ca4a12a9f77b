"""Layers of the nn, loss and metric ops: what they build (parameters, shapes, op attributes),
what a cloned test program computes, and the errors a wrong model gets when it is built."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.training.backward import append_backward
from pe_cli.base.errors import PeError, ShapeError

layers = fluid.layers


@pytest.fixture
def progs():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main, startup


def run(main, startup, feed, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope), exe, scope


def ops_of(program, type_):
    return [op for op in program.global_block().ops if op.type == type_]


# -- what the layers build ---------------------------------------------------------------------------


def test_lenet_shapes_parameters_and_grads(progs):
    main, startup = progs
    image = layers.data("image", [1, 28, 28])
    label = layers.data("label", [1], dtype="int64")
    conv1 = layers.conv2d(image, num_filters=6, filter_size=5, act="relu")
    pool1 = layers.pool2d(conv1, pool_size=2, pool_stride=2)
    conv2 = layers.conv2d(pool1, num_filters=16, filter_size=5, padding=1, stride=2)
    pool2 = layers.pool2d(conv2, pool_type="avg", global_pooling=True)
    logits = layers.fc(pool2, 10)
    loss = layers.mean(layers.softmax_with_cross_entropy(logits, label))
    assert conv1.shape == (-1, 6, 24, 24)
    assert pool1.shape == (-1, 6, 12, 12)
    assert conv2.shape == (-1, 16, 5, 5)
    assert pool2.shape == (-1, 16, 1, 1)
    block = main.global_block()
    assert block.var("conv2d_0.w_0").shape == (6, 1, 5, 5)
    assert block.var("conv2d_0.b_0").shape == (6,)
    assert block.var("conv2d_1.w_0").shape == (16, 6, 5, 5)
    init = [op for op in startup.global_block().ops if op.output("Out") == ["conv2d_1.w_0"]][0]
    assert init.type == "gaussian_random" and init.attrs["std"] == pytest.approx((2.0 / (25 * 6)) ** 0.5)
    bias_add = [op for op in block.ops if op.type == "elementwise_add" and "conv2d_0.b_0" in op.input("Y")][0]
    assert bias_add.attrs["axis"] == 1

    append_backward(loss)
    # The fed image needs no gradient: the first conv's conv2d_grad (Fluid's op) computes only its filter
    # gradient; the second's both.
    grads = {op.input("Input")[0]: sorted(s for s, n in op.outputs.items() if n) for op in ops_of(main, "conv2d_grad")}
    assert grads == {"image": ["Filter@GRAD"], pool1.name: ["Filter@GRAD", "Input@GRAD"]}
    assert [op.output("Filter@GRAD") for op in ops_of(main, "conv2d_grad")][0] == ["conv2d_1.w_0@GRAD"]

    rng = np.random.default_rng(0)
    feed = {"image": rng.random((4, 1, 28, 28), dtype=np.float32), "label": rng.integers(0, 10, (4, 1))}
    (value, w_grad), _, _ = run(main, startup, feed, [loss, "conv2d_0.w_0@GRAD"])
    assert np.isfinite(value).all() and value.dtype == np.float32
    assert w_grad.shape == (6, 1, 5, 5) and np.abs(w_grad).sum() > 0


def test_conv2d_padding_forms_and_groups(progs):
    main, startup = progs
    x = layers.data("x", [4, 7, 7])
    same = layers.conv2d(x, 3, 3, stride=2, padding="SAME", bias_attr=False)
    valid = layers.conv2d(x, 3, [3, 2], padding="VALID")
    asym = layers.conv2d(x, 2, 3, padding=[1, 0, 2, 1], groups=2, dilation=2)
    nested = layers.conv2d(x, 2, 3, padding=[[0, 0], [0, 0], [1, 1], [2, 2]])
    assert same.shape == (-1, 3, 4, 4)
    assert valid.shape == (-1, 3, 5, 6)
    assert asym.shape == (-1, 2, 4, 6)  # (7 + 1 + 0 - 5) // 1 + 1, (7 + 2 + 1 - 5) + 1
    assert nested.shape == (-1, 2, 7, 9)
    assert main.global_block().var("conv2d_2.w_0").shape == (2, 2, 3, 3)
    conv = ops_of(main, "conv2d")
    assert conv[0].attrs["padding_algorithm"] == "SAME" and conv[3].attrs["paddings"] == [1, 2]
    assert not any(
        op.type == "elementwise_add" and op.input("X") == [conv[0].output("Output")[0]]
        for op in main.global_block().ops
    )  # bias_attr=False


def test_conv2d_and_pool2d_take_nhwc_padding_pairs(progs):
    """NHWC's pairs are [[0,0],[t,b],[l,r],[0,0]] (Fluid's and Paddle 2.x's form); a pad on NHWC's
    channel dim is refused in one line."""
    main, startup = progs
    x = layers.data("x", [7, 7, 4])  # NHWC: [N, 7, 7, 4]
    conv = layers.conv2d(x, 2, 3, padding=[[0, 0], [1, 1], [2, 2], [0, 0]], data_format="NHWC")
    pool = layers.pool2d(x, 3, pool_padding=[[0, 0], [1, 1], [0, 0], [0, 0]], data_format="NHWC")
    assert conv.shape == (-1, 7, 9, 2) and pool.shape == (-1, 7, 5, 4)
    with pytest.raises(PeError, match="pads the batch or channel dim of NHWC input"):
        layers.conv2d(x, 2, 3, padding=[[0, 0], [0, 0], [1, 1], [1, 1]], data_format="NHWC")
    rng = np.random.default_rng(0)
    (out,) = run(main, startup, {"x": rng.random((2, 7, 7, 4), dtype=np.float32)}, [conv])[0]
    assert out.shape == (2, 7, 9, 2)


def test_batch_norm_layer_parameters_and_moving_update(progs):
    main, startup = progs
    x = layers.data("x", [3, 2, 2])
    y = layers.batch_norm(x, momentum=0.8, moving_mean_name="mm", moving_variance_name="mv")
    block = main.global_block()
    for stat in (block.var("mm"), block.var("mv")):
        assert stat.persistable and not stat.trainable and stat.stop_gradient, stat.name
    assert [p.name for p in block.all_parameters() if p.trainable] == ["batch_norm_0.w_0", "batch_norm_0.b_0"]
    op = ops_of(main, "batch_norm")[0]
    assert op.output("MeanOut") == ["mm"] and op.output("VarianceOut") == ["mv"]
    xv = np.random.default_rng(1).normal(2.0, 3.0, (8, 3, 2, 2)).astype(np.float32)
    (out,), exe, scope = run(main, startup, {"x": xv}, [y])
    bm, bv = xv.mean(axis=(0, 2, 3)), xv.var(axis=(0, 2, 3))
    np.testing.assert_allclose(np.asarray(scope.get_array("mm")), 0.2 * bm, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(scope.get_array("mv")), 0.8 + 0.2 * bv, rtol=1e-5)
    np.testing.assert_allclose(out, (xv - bm[:, None, None]) / np.sqrt(bv[:, None, None] + 1e-5), atol=1e-4)


def test_layer_norm_embedding_and_metrics(progs):
    main, startup = progs
    ids = layers.data("ids", [1], dtype="int64")
    emb = layers.embedding(ids, size=[10, 4], padding_idx=-1)
    normed = layers.layer_norm(emb, begin_norm_axis=1)
    scores = layers.data("scores", [5])
    label = layers.data("label", [1], dtype="int64")
    acc = layers.accuracy(scores, label, k=2)
    top_values, top_idx = layers.topk(scores, k=3)
    best = layers.argmax(scores, axis=1)
    assert ops_of(main, "lookup_table")[0].attrs["padding_idx"] == 9
    assert emb.shape == (-1, 4) and normed.shape == (-1, 4)
    assert main.global_block().var("layer_norm_0.w_0").shape == (4,)
    assert acc.shape == (1,) and acc.dtype == "float32" and top_idx.dtype == "int64" and best.shape == (-1,)

    s = np.array([[0.1, 0.5, 0.2, 0.9, 0.0], [0.3, 0.1, 0.2, 0.0, 0.4], [1.0, 0.0, 0.0, 0.0, 0.2]], np.float32)
    feed = {"ids": np.array([[3], [9], [3]]), "scores": s, "label": np.array([[1], [2], [0]])}
    (e, a, ti, b), _, _ = run(main, startup, feed, [emb, acc, top_idx, best])
    assert np.all(e[1] == 0) and np.all(e[0] == e[2]) and np.any(e[0] != 0)
    np.testing.assert_allclose(a, [2 / 3])  # top-2 rows {3, 1}, {4, 0}, {0, 4}: labels 1 and 0 hit
    np.testing.assert_array_equal(ti, [[3, 1, 2], [4, 0, 2], [0, 4, 1]])
    np.testing.assert_array_equal(b, [3, 4, 0])


def test_losses_compute(progs):
    main, startup = progs
    x = layers.data("x", [3])
    y = layers.data("y", [3])
    label = layers.data("label", [1], dtype="int64")
    sq = layers.square_error_cost(x, y)
    sce = layers.sigmoid_cross_entropy_with_logits(x, y)
    ce = layers.cross_entropy(y, label)
    hub = layers.huber_loss(x, y, delta=1.0)
    xv = np.array([[0.5, -1.0, 2.0], [0.0, 3.0, -0.5]], np.float32)
    yv = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], np.float32)
    lv = np.array([[2], [0]])
    (a, b, c, d), _, _ = run(main, startup, {"x": xv, "y": yv, "label": lv}, [sq, sce, ce, hub])
    np.testing.assert_allclose(a, (xv - yv) ** 2, rtol=1e-6)
    np.testing.assert_allclose(b, np.maximum(xv, 0) - xv * yv + np.log1p(np.exp(-np.abs(xv))), rtol=1e-5)
    np.testing.assert_allclose(c, -np.log([[0.5], [0.6]]), rtol=1e-6)
    r = np.abs(yv - xv)
    np.testing.assert_allclose(d, np.where(r <= 1, 0.5 * r * r, r - 0.5), rtol=1e-6)


# -- Program.clone(for_test=True) -----------------------------------------------------------------


def test_clone_for_test_dropout_scales_and_batch_norm_uses_moving_stats(progs):
    main, startup = progs
    x = layers.data("x", [3, 2, 2])
    bn = layers.batch_norm(x)
    out = layers.dropout(bn, dropout_prob=0.25)
    test_program = main.clone(for_test=True)
    assert all(op.attrs["is_test"] for op in test_program.global_block().ops if op.type in ("dropout", "batch_norm"))
    assert not any(op.attrs["is_test"] for op in main.global_block().ops if op.type in ("dropout", "batch_norm"))

    rng = np.random.default_rng(2)
    xv = rng.normal(1.0, 2.0, (6, 3, 2, 2)).astype(np.float32)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    (train_out,) = exe.run(main, feed={"x": xv}, fetch_list=[out], scope=scope)
    assert (train_out == 0).mean() > 0.05  # training drops elements
    mean = np.asarray(scope.get_array("batch_norm_0.w_1")).copy()
    var = np.asarray(scope.get_array("batch_norm_0.w_2")).copy()
    assert np.abs(mean).sum() > 0  # the train run moved the statistics

    x2 = rng.normal(-3.0, 0.5, (4, 3, 2, 2)).astype(np.float32)
    (test_out,) = exe.run(test_program, feed={"x": x2}, fetch_list=[out], scope=scope)
    expected = (x2 - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5) * 0.75
    np.testing.assert_allclose(test_out, expected, rtol=1e-5, atol=1e-5)
    # evaluating leaves the moving statistics alone
    np.testing.assert_array_equal(np.asarray(scope.get_array("batch_norm_0.w_1")), mean)


def test_dropout_seed_fixes_the_mask(progs):
    main, startup = progs
    x = layers.data("x", [50])
    a = layers.dropout(x, 0.5, seed=3)
    b = layers.dropout(x, 0.5, dropout_implementation="upscale_in_train")
    op = ops_of(main, "dropout")[0]
    assert op.attrs["fix_seed"] and op.attrs["seed"] == 3
    assert ops_of(main, "dropout")[1].attrs["seed"] == 5  # the program's random_seed
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    xv = np.ones((4, 50), np.float32)
    first = exe.run(main, feed={"x": xv}, fetch_list=[a, b], scope=scope)
    second = exe.run(main, feed={"x": xv}, fetch_list=[a, b], scope=scope)
    np.testing.assert_array_equal(first[0], second[0])
    assert set(np.unique(first[1])) <= {0.0, 2.0}


# -- errors when a model is built wrong ------------------------------------------------------------


def test_conv2d_on_2d_input_names_layer_and_shapes(progs):
    x = layers.data("pixels", [784])
    with pytest.raises(
        ShapeError,
        match=r"conv2d layer 'conv2d_\d+' built at .*: input 'pixels' \[-1, 784\] must be 4-D NCHW to convolve with a filter \[6, C, 5, 5\]; reshape",
    ) as e:
        layers.conv2d(x, num_filters=6, filter_size=5)
    msg = str(e.value)
    assert "conv2d_0" in msg and "[-1, 784]" in msg and "[6, C, 5, 5]" in msg and "test_nn.py" in msg


def test_wrong_label_shape_after_conv_and_fc(progs):
    image = layers.data("image", [1, 8, 8])
    label = layers.data("label", [10], dtype="int64")
    logits = layers.fc(layers.pool2d(layers.conv2d(image, 4, 3), 2, pool_stride=2), 10)
    with pytest.raises(
        ShapeError,
        match=r"op 'softmax_with_cross_entropy' of layer 'softmax_with_cross_entropy_\d+' built at .*: Label must be \[-1, 1\] \(int64 class ids\) for Logits \[-1, 10\], got \[-1, 10\]",
    ) as e:
        layers.softmax_with_cross_entropy(logits, label)
    msg = str(e.value)
    assert "softmax_with_cross_entropy_0" in msg and "[-1, 10]" in msg and "[-1, 1]" in msg
    with pytest.raises(
        ShapeError,
        match=r"op 'cross_entropy2' of layer 'cross_entropy2_\d+' built at .*: Label must be \[-1, 1\] \(int64 class ids\) for X \[-1, 10\], got \[-1, 10\]",
    ) as e:
        layers.cross_entropy(logits, label)
    assert "cross_entropy2_0" in str(e.value) and "X [-1, 10]" in str(e.value) and "got [-1, 10]" in str(e.value)
    layers.accuracy(logits, label)  # (Fluid 1.8.5 builds it, and checks Label's width when it runs)


def test_conv2d_op_channel_mismatch_names_both_shapes(progs):
    main, _ = progs
    block = main.global_block()
    x = layers.data("x", [3, 8, 8])
    w = block.create_var(name="w", shape=(4, 2, 3, 3), dtype="float32")
    out = block.create_var(name="out")
    with pytest.raises(
        ShapeError,
        match=r"op 'conv2d' built at .*: Input \[-1, 3, 8, 8\] has 3 channels but Filter \[4, 2, 3, 3\] with groups=1 expects 2",
    ) as e:
        block.append_op("conv2d", {"Input": [x], "Filter": [w]}, {"Output": [out]})
    assert "Input [-1, 3, 8, 8]" in str(e.value) and "Filter [4, 2, 3, 3]" in str(e.value)


def test_pool_too_large_and_other_shape_errors(progs):
    x = layers.data("x", [2, 4, 4])
    with pytest.raises(
        ShapeError,
        match=r"op 'pool2d' of layer 'pool2d_\d+' built at .*: ksize \[6, 6\] with paddings \[0, 0, 0, 0\] and strides \[1, 1\] leaves no output of X \[-1, 2,",
    ) as e:  # (as Fluid's: "the output size must be greater than 0")
        layers.pool2d(x, pool_size=6)
    assert "pool2d_0" in str(e.value) and "X [-1, 2, 4, 4]" in str(e.value) and "ksize [6, 6]" in str(e.value)
    with pytest.raises(
        ShapeError,
        match=r"pool2d layer 'pool2d_\d+' built at .*: input 'flat' \[-1, 16\] must be 4-D NCHW for a 2 pool window",
    ) as e:
        layers.pool2d(layers.data("flat", [16]), pool_size=2)
    assert "pool2d_1" in str(e.value) and "[-1, 16]" in str(e.value)
    a, b = layers.data("a", [1]), layers.data("b", [], append_batch_size=True)
    with pytest.warns(UserWarning) as caught:  # Fluid broadcasts them (measured on the oracle)
        loss = layers.square_error_cost(a, b)
    warning = str(caught[0].message)
    assert "square_error_cost_0" in warning and "[-1, 1]" in warning and "[-1]" in warning
    (got,) = fluid.Executor(fluid.CPUPlace()).run(
        progs[0],
        feed={"a": np.array([[0.7], [0.2]], "float32"), "b": np.array([0.7, 0.3], "float32")},
        fetch_list=[loss],
        scope=fluid.Scope(),
    )
    np.testing.assert_allclose(got, [[0.0, 0.16], [0.25, 0.01]], rtol=1e-5)  # Fluid 1.8.5's values
    with pytest.raises(
        ShapeError,
        match=r"layer_norm layer 'layer_norm_\d+' built at .*: begin_norm_axis=4 must be in \[1, 3\] for input 'x' \[-1, 2, 4, 4\]",
    ) as e:
        layers.layer_norm(x, begin_norm_axis=4)
    assert "layer_norm_0" in str(e.value) and "[-1, 2, 4, 4]" in str(e.value)


def test_attribute_range_errors(progs):
    x = layers.data("x", [3, 8, 8])
    with pytest.raises(PeError, match=r"dropout_prob=1\.5 is out of range; expected in \[0, 1\]"):
        layers.dropout(x, dropout_prob=1.5)
    with pytest.raises(PeError, match=r"strides=\[-1, 1\] is out of range"):
        layers.conv2d(x, 4, 3, stride=[-1, 1])
    with pytest.raises(PeError, match=r"strides \[0, 0\] must be >= 1"):
        layers.pool2d(x, 2, pool_stride=0)
    assert layers.pool2d(x, 2, pool_padding=-1).shape == (-1, 3, 5, 5)  # (a negative padding crops, as Fluid's)
    with pytest.raises(PeError, match="pool_type"):
        layers.pool2d(x, 2, pool_type="min")
    with pytest.raises(PeError, match="epsilon"):
        layers.batch_norm(x, epsilon=0.5)
    with pytest.raises(PeError, match="groups=2 does not divide"):
        layers.conv2d(x, 4, 3, groups=2)
    with pytest.raises(PeError, match="dropout_implementation"):
        layers.dropout(x, 0.5, dropout_implementation="scale")
