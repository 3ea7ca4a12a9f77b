"""The loss layers of layers/loss_classification.py, loss_regression.py, loss_ranking.py and
loss_sampled.py (and l2_normalize of normalization.py) as Fluid 1.8 users call them: shapes at build
time, mistakes reported there, and a value when run (the ops' numerics are checked by their op
cases)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError, ShapeError

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def run(main, feed, fetch):
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, scope=fluid.Scope())


def test_l2_normalize_rows_and_a_vector(prog):
    x = layers.data("x", [3], dtype="float32")
    v = layers.data("v", [2], dtype="float32", append_batch_size=False)
    out, vout = layers.l2_normalize(x, axis=-1), layers.l2_normalize(v, axis=1)
    assert out.shape == (-1, 3) and vout.shape == (2,)
    got, gotv = run(
        prog,
        {"x": np.array([[3, 4, 0], [0, 0, 2]], dtype=np.float32), "v": np.array([6, 8], dtype=np.float32)},
        [out, vout],
    )
    np.testing.assert_allclose(got, [[0.6, 0.8, 0], [0, 0, 1]], rtol=1e-6)
    np.testing.assert_allclose(gotv, [0.6, 0.8], rtol=1e-6)


def test_label_smooth_of_one_hot_labels(prog):
    label = layers.one_hot(layers.data("y", [1], dtype="int64"), depth=4)
    smooth = layers.label_smooth(label, epsilon=0.2)
    got = run(prog, {"y": np.array([[1], [3]], dtype=np.int64)}, [smooth])[0]
    np.testing.assert_allclose(got, [[0.05, 0.85, 0.05, 0.05], [0.05, 0.05, 0.05, 0.85]], rtol=1e-6)
    with pytest.raises(PeError, match="epsilon=1.5 must lie in"):
        layers.label_smooth(label, epsilon=1.5)


def test_smooth_l1_is_per_sample_and_wants_both_weights(prog):
    x, y = layers.data("x", [2, 3]), layers.data("y", [2, 3])
    loss = layers.smooth_l1(x, y)
    assert loss.shape == (-1, 1)
    got = run(prog, {"x": np.zeros((2, 2, 3), np.float32), "y": np.full((2, 2, 3), 0.5, np.float32)}, [loss])[0]
    np.testing.assert_allclose(got, [[0.75], [0.75]], rtol=1e-6)  # 6 * 0.5 * 0.5^2
    with pytest.raises(ShapeError, match="give both InsideWeight and OutsideWeight"):
        layers.smooth_l1(x, y, inside_weight=layers.data("w", [2, 3]))


def test_kldiv_loss_reductions(prog):
    x = layers.data("x", [2], dtype="float32")
    t = layers.data("t", [2], dtype="float32")
    mean, none = layers.kldiv_loss(x, t), layers.kldiv_loss(x, t, reduction="none")
    assert mean.shape == (1,) and none.shape == (-1, 2)
    xv = np.log(np.array([[0.5, 0.5], [0.25, 0.75]], dtype=np.float32))
    tv = np.array([[0.5, 0.5], [0.25, 0.75]], dtype=np.float32)
    got_mean, got_none = run(prog, {"x": xv, "t": tv}, [mean, none])
    np.testing.assert_allclose(got_none, np.zeros((2, 2)), atol=1e-7)  # no divergence from itself
    with pytest.raises(PeError, match="reduction='avg' is not one of"):
        layers.kldiv_loss(x, t, reduction="avg")


def test_ranking_losses(prog):
    left, right = layers.data("l", [1]), layers.data("r", [1])
    label = layers.data("label", [1])
    margin = layers.margin_rank_loss(label, left, right, margin=0.5)
    rank = layers.rank_loss(label, left, right)
    scores = layers.data("s", [3])
    bpr = layers.bpr_loss(scores, layers.data("pos", [1], dtype="int64"))
    assert margin.shape == rank.shape == bpr.shape == (-1, 1)
    feed = {
        "l": np.array([[2.0], [0.0]], np.float32),
        "r": np.array([[1.0], [0.0]], np.float32),
        "label": np.array([[1.0], [-1.0]], np.float32),
        "s": np.array([[1, 1, 1]], np.float32),
        "pos": np.array([[2]], np.int64),
    }
    got_m, got_r, got_b = run(prog, feed, [margin, rank, bpr])
    np.testing.assert_allclose(got_m, [[0.0], [0.5]], atol=1e-7)
    np.testing.assert_allclose(got_r, [[np.log1p(np.e) - 1], [np.log(2)]], rtol=1e-6)
    np.testing.assert_allclose(got_b, [[np.log(2)]], rtol=1e-6)
    with pytest.raises(ShapeError, match=r"must each be \[batch_size\] or \[batch_size, 1\]"):
        layers.rank_loss(layers.data("a", [2]), layers.data("b", [2]), layers.data("c", [2]))


def test_teacher_student_loss_gradient_stops_outside_the_bounds(prog):
    x = layers.data("x", [4, 1], dtype="float64", append_batch_size=False, stop_gradient=False)
    label = layers.data("label", [4, 1], dtype="float64", append_batch_size=False)
    loss = layers.teacher_student_sigmoid_loss(x, label, soft_max_up_bound=2.0, soft_max_lower_bound=-2.0)
    dx = fluid.backward.gradients([layers.reduce_sum(loss)], [x])[0]
    xv = np.array([[0.5], [3.0], [-0.5], [-2.5]])
    lv = np.array([[-1.0], [-1.0], [1.25], [0.5]])
    got_loss, got_dx = run(prog, {"x": xv, "label": lv}, [loss, dx])
    sig = 1 / (1 + np.exp(-xv))
    np.testing.assert_allclose(
        got_loss[[0, 2], 0], [np.log1p(np.exp(0.5)) - 0.5, 2 * np.log1p(np.exp(-0.5)) + 0.5 * 1.25], rtol=1e-12
    )
    np.testing.assert_allclose(got_dx, [sig[0] - 1, [0.0], 2 * sig[2] - 1.25, [0.0]], rtol=1e-12)


def test_hsigmoid_trains_a_classifier():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [4], dtype="float32")
        y = layers.data("y", [1], dtype="int64")
        cost = layers.hsigmoid(x, y, num_classes=5)
        loss = layers.mean(cost)
        fluid.optimizer.SGD(0.5).minimize(loss)
    params = {p.name: p.shape for p in main.global_block().all_parameters()}
    assert cost.shape == (-1, 1) and sorted(params.values()) == [(4, 1), (4, 4)]
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 5, size=(64, 1))
    xv = (np.eye(5)[labels.reshape(-1)][:, :4] * 2 + rng.normal(scale=0.1, size=(64, 4))).astype(np.float32)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    losses = [
        float(exe.run(main, feed={"x": xv, "y": labels}, fetch_list=[loss], scope=scope)[0][0]) for _ in range(30)
    ]
    assert losses[-1] < 0.7 * losses[0] and losses[-1] < losses[-10]  # (short paths keep a log 2 floor)


def test_hsigmoid_custom_tree_needs_its_paths(prog):
    x, y = layers.data("x", [4]), layers.data("y", [1], dtype="int64")
    with pytest.raises(PeError, match="custom tree needs path_table, path_code"):
        layers.hsigmoid(x, y, num_classes=5, is_custom=True)
    table = layers.data("table", [3], dtype="int64")
    code = layers.data("code", [3], dtype="int64")
    out = layers.hsigmoid(x, y, num_classes=6, path_table=table, path_code=code, is_custom=True)
    assert out.shape == (-1, 1)


def test_center_loss_moves_its_centers():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [2], dtype="float32")
        y = layers.data("y", [1], dtype="int64")
        loss = layers.center_loss(
            x,
            y,
            num_classes=2,
            alpha=0.5,
            param_attr=fluid.ParamAttr(name="centers", initializer=fluid.initializer.Constant(0.0)),
        )
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    xv = np.array([[2, 0], [4, 0], [0, 3]], np.float32)
    yv = np.array([[0], [0], [1]])
    first = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss], scope=scope)[0]
    np.testing.assert_allclose(first.reshape(-1), [2, 8, 4.5], rtol=1e-6)
    centers = np.array(scope.find_var("centers").get_tensor())
    np.testing.assert_allclose(centers, [[0.5 * 6 / 3, 0], [0, 0.5 * 3 / 2]], rtol=1e-6)
    second = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss], scope=scope)[0]
    assert second.sum() < first.sum()


def test_sampled_softmax_with_customized_samples_is_softmax_over_them():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        logits = layers.data("logits", [6], dtype="float64")
        label = layers.data("label", [1], dtype="int64")
        samples = layers.data("samples", [3], dtype="int64")
        probs = layers.data("probs", [3], dtype="float64")
        loss = layers.sampled_softmax_with_cross_entropy(
            logits,
            label,
            num_samples=2,
            use_customized_samples=True,
            customized_samples=samples,
            customized_probabilities=probs,
        )
        drawn = layers.sampled_softmax_with_cross_entropy(logits, label, num_samples=3, seed=4)
    assert loss.shape == (-1, 1)
    lv = np.random.default_rng(8).normal(size=(2, 6))
    sv = np.array([[1, 3, 5], [2, 0, 4]])
    pv = np.array([[0.5, 0.2, 0.1], [0.4, 0.3, 0.6]])
    got, got_drawn = fluid.Executor(fluid.CPUPlace()).run(
        main,
        feed={"logits": lv, "label": sv[:, :1], "samples": sv, "probs": pv},
        fetch_list=[loss, drawn],
        scope=fluid.Scope(),
    )
    z = np.take_along_axis(lv, sv, axis=1) - np.log(pv)
    want = -(z[:, 0] - np.log(np.exp(z).sum(axis=1)))
    np.testing.assert_allclose(got.reshape(-1), want, rtol=1e-10)
    assert got_drawn.shape == (2, 1) and np.all(got_drawn > 0)
    with pytest.raises(PeError, match="num_true=2; only 1"):
        layers.sampled_softmax_with_cross_entropy(logits, label, num_samples=2, num_true=2)
