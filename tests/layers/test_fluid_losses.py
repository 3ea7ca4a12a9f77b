"""Fluid 1.8's loss layers nce, log_loss, dice_loss and npair_loss as its users call them: Fluid's
parameters, values against numpy, Fluid's TypeError / ValueError for bad arguments (the ops' numerics
and gradients are checked by their op cases)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main, startup


def run(progs, feed, fetch):
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(progs[1], scope=scope)
    return exe.run(progs[0], feed=feed, fetch_list=fetch, scope=scope)


def _nce_op(main):
    return next(op for op in main.global_block().ops if op.type == "nce")


def test_nce_custom_dist_draws_by_its_alias_table_and_divides_by_samples_plus_one(prog):
    x = layers.data("x", [4], dtype="float32")
    y = layers.data("y", [1], dtype="int64")
    cost = layers.nce(
        x,
        y,
        num_total_classes=5,
        num_neg_samples=3,
        sampler="custom_dist",
        custom_dist=[0.0, 0.0, 1.0, 0.0, 0.0],
        seed=1,
    )
    op = _nce_op(prog[0])
    feed = {"x": np.ones((2, 4), np.float32), "y": np.array([[0], [4]], np.int64)}
    got, labels, raw = run(prog, feed, [cost, op.output("SampleLabels")[0], op.output("Cost")[0]])
    np.testing.assert_array_equal(labels, [[0, 2, 2, 2], [4, 2, 2, 2]])
    np.testing.assert_allclose(got, raw / 4, rtol=1e-6)
    assert got.shape == (2, 1) and np.all(np.isfinite(got))


def test_nce_uniform_trains_down(prog):
    x = layers.data("x", [3], dtype="float32")
    y = layers.data("y", [1], dtype="int64")
    loss = layers.mean(layers.nce(x, y, num_total_classes=8, num_neg_samples=2, seed=3))
    fluid.optimizer.SGD(0.5).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(prog[1], scope=scope)
    feed = {"x": np.eye(3, dtype=np.float32), "y": np.array([[1], [5], [7]], np.int64)}
    losses = [exe.run(prog[0], feed=feed, fetch_list=[loss], scope=scope)[0].item() for _ in range(15)]
    assert losses[-1] < losses[0]


def test_nce_refuses_what_fluid_refuses(prog):
    x, y = layers.data("x", [3], dtype="float32"), layers.data("y", [1], dtype="int64")
    with pytest.raises(TypeError, match="nce: label 'yf' is float32; it must be one of int64"):
        layers.nce(x, layers.data("yf", [1], dtype="float32"), num_total_classes=4)
    with pytest.raises(
        ValueError, match="nce: sampler='zipf' is not supported; use 'uniform', 'log_uniform' or 'custom_dist'"
    ):
        layers.nce(x, y, num_total_classes=4, sampler="zipf")


def test_log_loss_value_and_float32_only(prog):
    p, label = layers.data("p", [1], dtype="float32"), layers.data("l", [1], dtype="float32")
    loss = layers.log_loss(p, label, epsilon=1e-4)
    pv, lv = np.array([[0.9], [0.2]], np.float32), np.array([[1], [0]], np.float32)
    got = run(prog, {"p": pv, "l": lv}, [loss])[0]
    np.testing.assert_allclose(got, -lv * np.log(pv + 1e-4) - (1 - lv) * np.log(1 - pv + 1e-4), rtol=1e-5)
    with pytest.raises(TypeError, match="log_loss: input 'p64' is float64; it must be one of float32"):
        layers.log_loss(layers.data("p64", [1], dtype="float64"), label)


def test_spectral_norm_and_bilinear_tensor_product_layers(prog):
    w = layers.create_parameter(
        [3, 2, 2],
        "float32",
        name="w0",
        default_initializer=fluid.initializer.NumpyArrayInitializer(
            np.arange(12, dtype=np.float32).reshape(3, 2, 2) - 5
        ),
    )
    sn = layers.spectral_norm(w, dim=1, power_iters=30)
    x, y = layers.data("bx", [2], dtype="float32"), layers.data("by", [3], dtype="float32")
    out = layers.bilinear_tensor_product(x, y, 4, act="tanh", bias_attr=False)
    assert sn.shape == (3, 2, 2) and out.shape == (-1, 4)
    got, bil = run(prog, {"bx": np.ones((2, 2), np.float32), "by": np.ones((2, 3), np.float32)}, [sn, out])
    mat = np.moveaxis(np.arange(12, dtype=np.float64).reshape(3, 2, 2) - 5, 1, 0).reshape(2, -1)
    np.testing.assert_allclose(got, (np.arange(12).reshape(3, 2, 2) - 5) / np.linalg.svd(mat)[1][0], rtol=1e-5)
    assert np.all(np.abs(bil) < 1)
    with pytest.raises(TypeError, match="spectral_norm: dim must be int, got float"):
        layers.spectral_norm(w, dim=1.0)


def test_dice_loss_and_npair_loss_values(prog):
    p = layers.data("p", [2, 3], dtype="float32")
    lab = layers.data("lab", [2, 1], dtype="int64")
    a, pos = layers.data("a", [3], dtype="float32"), layers.data("pos", [3], dtype="float32")
    ids = layers.data("ids", [4], dtype="float32", append_batch_size=False)
    a4, p4 = layers.reshape(a, [4, 3]), layers.reshape(pos, [4, 3])
    dice, npair = layers.dice_loss(p, lab), layers.npair_loss(a4, p4, ids, l2_reg=0.01)
    rng = np.random.default_rng(1)
    pv = rng.uniform(0, 1, (2, 2, 3)).astype(np.float32)
    lv = np.array([[[0], [2]], [[1], [1]]], np.int64)
    av, posv = rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32)
    idv = np.array([1, 2, 1, 3], np.float32)
    got_dice, got_npair = run(prog, {"p": pv, "lab": lv, "a": av, "pos": posv, "ids": idv}, [dice, npair])
    onehot = np.eye(3)[lv[..., 0]]
    score = 1 - 2 * (pv * onehot).sum(axis=(1, 2)) / (pv.sum(axis=(1, 2)) + onehot.sum(axis=(1, 2)) + 1e-5)
    np.testing.assert_allclose(got_dice, score.mean(), rtol=1e-5)
    same = (idv[:, None] == idv[None, :]).astype(np.float64)
    same /= same.sum(axis=1, keepdims=True)
    sim = av @ posv.T
    logp = sim - sim.max(axis=1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    ce = -(same * logp).sum(axis=1, keepdims=True)
    want = (same * ce).sum(axis=0).mean() + 0.25 * 0.01 * ((av**2).sum(1).mean() + (posv**2).sum(1).mean())
    np.testing.assert_allclose(np.asarray(got_npair).reshape(-1), [want], rtol=1e-5)
