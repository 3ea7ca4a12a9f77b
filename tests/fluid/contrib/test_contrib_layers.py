"""fluid.contrib's layers of contrib ops, run in a program: fused_elemwise_activation's functor
orders, fused_embedding_seq_pool (sums of table rows per sequence, padding rows zero),
partial_concat / partial_sum, shuffle_batch (a new order each run from the advancing seed; the
gradient undone), multiclass_nms2's indices and ctr_metric_bundle's running sums."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import contrib

RNG = np.random.default_rng(9)
X = RNG.uniform(-1, 1, size=(6, 4)).astype("float32")
Y = RNG.uniform(0, 1, size=(6, 4)).astype("float32")


@pytest.fixture(scope="module")
def run():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.layers.data("x", [4], dtype="float32")
        x.stop_gradient = False
        y = fluid.layers.data("y", [4], dtype="float32")
        ids = fluid.layers.data("ids", [1], dtype="int64", lod_level=1)
        outs = {
            "add_relu": contrib.fused_elemwise_activation(x, y, ["elementwise_add", "relu"]),
            "scale_mul": contrib.fused_elemwise_activation(x, y, "scale,elementwise_mul", scale=2.0),
            "emb": contrib.fused_embedding_seq_pool(ids, [10, 3], padding_idx=0),
            "pc": contrib.partial_concat([x, y], 1, 2),
            "ps": contrib.partial_sum([x, y], -2),
            "sb": contrib.shuffle_batch(x, seed=1),
        }
        metrics = contrib.ctr_metric_bundle(fluid.layers.sigmoid(x), y)
        weights = fluid.layers.assign(np.arange(24, dtype="float32").reshape(6, 4))
        fluid.backward.append_backward(fluid.layers.reduce_sum(fluid.layers.elementwise_mul(outs["sb"], weights)))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(start, scope=scope)
    ids = fluid.create_lod_tensor(np.array([[1], [0], [2], [3]], dtype="int64"), [[3, 1]], fluid.CPUPlace())
    names = list(outs) + ["m%d" % i for i in range(6)] + ["x_grad"]
    results = [
        dict(
            zip(
                names,
                exe.run(
                    main,
                    feed={"x": X, "y": Y, "ids": ids},
                    scope=scope,
                    fetch_list=list(outs.values()) + list(metrics) + [x.name + "@GRAD"],
                ),
            )
        )
        for _ in range(2)
    ]
    return results, np.array(scope.find_var("fused_embedding_seq_pool_0.w_0").get_tensor())


def test_fused_elemwise_activation_and_embedding_seq_pool(run):
    (first, _), table = run
    np.testing.assert_allclose(first["add_relu"], X + np.maximum(Y, 0), rtol=1e-6)
    np.testing.assert_allclose(first["scale_mul"], 2 * (X * Y), rtol=1e-6)
    np.testing.assert_allclose(first["emb"], [table[1] + table[2], table[3]], rtol=1e-6)
    with pytest.raises(ValueError, match="length should be 2"):
        contrib.fused_elemwise_activation(None, None, ["relu"])


def test_partial_concat_and_sum(run):
    (first, _), _ = run
    np.testing.assert_array_equal(first["pc"], np.concatenate([X[:, 1:3], Y[:, 1:3]], 1))
    np.testing.assert_allclose(first["ps"], X[:, 2:] + Y[:, 2:], rtol=1e-6)


def test_shuffle_batch_draws_a_new_order_each_run_and_its_gradient_undoes_it(run):
    (first, second), _ = run
    orders = []
    for r in (first, second):
        order = [int(np.flatnonzero((X == row).all(1))[0]) for row in r["sb"]]
        assert sorted(order) == list(range(6))
        orders.append(order)
        weights = np.arange(24, dtype="float32").reshape(6, 4)
        np.testing.assert_array_equal(r["x_grad"][order], weights)  # d sum(out * w) / dx, unshuffled
    assert orders[0] != orders[1]


def test_ctr_metric_bundle_sums_over_runs(run):
    (_, second), _ = run
    p = 1 / (1 + np.exp(-X.astype(np.float64)))
    want = [((p - Y) ** 2).sum(), np.abs(p - Y).sum(), p.sum(), (1 / (1 + np.exp(-p))).sum(), Y.sum(), 6.0]
    np.testing.assert_allclose([float(second[f"m{i}"][0]) for i in range(6)], 2 * np.array(want), rtol=1e-5)


def test_multiclass_nms2_returns_the_kept_boxes_indices():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        boxes = fluid.layers.data("b", [3, 4], dtype="float32")
        scores = fluid.layers.data("s", [2, 3], dtype="float32")
        out, index = contrib.multiclass_nms2(boxes, scores, 0.1, 10, 10, 0.5, return_index=True)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    b = np.array([[[0, 0, 1, 1], [0, 0, 1.05, 1], [2, 2, 3, 3]]], dtype="float32")
    s = np.array([[[0.0, 0.0, 0.0], [0.9, 0.8, 0.3]]], dtype="float32")
    o, i = exe.run(main, feed={"b": b, "s": s}, fetch_list=[out, index])
    np.testing.assert_allclose(o[:, 1], [0.9, 0.3])  # box 1 overlaps box 0: suppressed
    assert i.ravel().tolist() == [0, 2]


def test_tdm_child_and_sampler_read_the_tree_from_their_parameters():
    tree = np.array(
        [
            [0, 0, 0, 1, 2],
            [0, 1, 0, 3, 4],
            [0, 1, 0, 5, 6],
            [0, 2, 1, 0, 0],
            [1, 2, 1, 0, 0],
            [2, 2, 2, 0, 0],
            [3, 2, 2, 0, 0],
        ],
        dtype="int32",
    )
    travel = np.array([[1, 3], [1, 4], [2, 5], [2, 6]], dtype="int32")
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.layers.data("x", [1], dtype="int32")
        child, leaf = contrib.tdm_child(
            x, 7, 2, param_attr=fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(tree))
        )
        samples, labels, mask = contrib.tdm_sampler(
            x,
            [1, 2],
            [2, 4],
            4,
            output_list=False,
            tree_travel_attr=fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(travel)),
            tree_layer_attr=fluid.ParamAttr(
                initializer=fluid.initializer.NumpyArrayInitializer(np.arange(1, 7, dtype="int32").reshape(6, 1))
            ),
        )
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    c, lm, s, lb, m = exe.run(
        main, feed={"x": np.array([[2], [3]], dtype="int32")}, fetch_list=[child, leaf, samples, labels, mask]
    )
    assert c.reshape(2, 2).tolist() == [[5, 6], [0, 0]] and lm.reshape(2, 2).tolist() == [[1, 1], [0, 0]]
    assert s.shape == (2, 5) and s[:, 0].tolist() == [2, 2] and s[:, 2].tolist() == [5, 6]
    assert lb.tolist() == [[1, 0, 1, 0, 0]] * 2 and (m == 1).all()
    assert s[0, 1] == 1 and set(s[0, 3:]) <= {3, 4, 6} and len(set(s[0, 3:])) == 2
    with pytest.raises(ValueError, match="less than the number of nodes"):
        contrib.tdm_sampler(x, [2, 1], [2, 4], 4)


def test_text_matching_layers_chain_and_train():
    """match_matrix_tensor -> var_conv_2d -> sequence_topk_avg_pooling, a MatchPyramid-style net."""
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        q = fluid.layers.data("q", [4], dtype="float32", lod_level=1)
        t = fluid.layers.data("t", [4], dtype="float32", lod_level=1)
        match, _ = contrib.match_matrix_tensor(q, t, 2, act="tanh")
        conv = contrib.var_conv_2d(match, q, t, 2, 3, [3, 3], act="relu")
        pool = contrib.sequence_topk_avg_pooling(conv, q, t, [1, 2], 3)
        loss = fluid.layers.mean(
            fluid.layers.square(
                fluid.layers.elementwise_sub(
                    pool, fluid.layers.fill_constant_batch_size_like(pool, [-1, 6], "float32", 1.0)
                )
            )
        )
        fluid.optimizer.SGD(0.5).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    q_v = fluid.create_lod_tensor(RNG.uniform(size=(5, 4)).astype("float32"), [[2, 3]], fluid.CPUPlace())
    t_v = fluid.create_lod_tensor(RNG.uniform(size=(7, 4)).astype("float32"), [[3, 4]], fluid.CPUPlace())
    losses = []
    for _ in range(4):
        out, value = exe.run(main, feed={"q": q_v, "t": t_v}, fetch_list=[pool, loss], return_numpy=False)
        losses.append(float(np.array(value).reshape(-1)[0]))
    assert np.array(out).shape == (5, 6) and out.lod() == [[0, 2, 5]]
    assert losses[-1] < losses[0]


def test_tree_conv_layer_adds_its_bias_and_activation():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        nodes = fluid.layers.data("nodes", [4, 3], dtype="float32")
        edges = fluid.layers.data("edges", [3, 2], dtype="int32")
        out = contrib.tree_conv(
            nodes,
            edges,
            output_size=2,
            num_filters=2,
            max_depth=2,
            param_attr=fluid.ParamAttr(name="tw"),
            bias_attr=fluid.ParamAttr(name="tb", initializer=fluid.initializer.Constant(0.5)),
        )
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(start, scope=scope)
    x = RNG.normal(size=(1, 4, 3)).astype("float32")
    (got,) = exe.run(
        main,
        feed={"nodes": x, "edges": np.array([[[1, 2], [1, 3], [0, 0]]], dtype="int32")},
        fetch_list=[out],
        scope=scope,
    )
    w = np.array(scope.find_var("tw").get_tensor())
    leaf = np.einsum("f,fon->on", x[0, 1], w[:, 2])  # a leaf's patch is itself (eta_t 1)
    assert got.shape == (1, 4, 2, 2)
    np.testing.assert_allclose(got[0, 1], np.tanh(leaf + 0.5), rtol=1e-5)
    np.testing.assert_allclose(got[0, 3], np.tanh(np.full((2, 2), 0.5)), rtol=1e-6)  # past the tree: the bias


def test_a_block_of_the_wrong_size_is_a_one_line_error():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.layers.data("x", [1], dtype="float32", lod_level=1)
        row = fluid.layers.data("row", [2], dtype="float32", lod_level=1)
        col = fluid.layers.data("col", [2], dtype="float32", lod_level=1)
        out = contrib.sequence_topk_avg_pooling(x, row, col, [1], 2)
    exe = fluid.Executor(fluid.CPUPlace())

    def lod(rows, width):
        return fluid.create_lod_tensor(np.zeros((rows, width), "float32"), [[rows]], fluid.CPUPlace())

    with pytest.raises(PeError, match=r"sequence 0 of X has 5 values, channels \* rows \* columns is 2 \* 2 \* 1") as e:
        exe.run(main, feed={"x": lod(5, 1), "row": lod(2, 2), "col": lod(1, 2)}, fetch_list=[out])
    assert "\n" not in str(e.value)
