"""Fluid 1.8's indexing and manipulation names of ``fluid.layers`` (flip, roll, unstack, rank, shape,
index_select, index_sample, nonzero, scatter_nd, scatter_nd_add, shard_index, multiplex), by its
parameter names: values against numpy, a gradient through the composed ones, and the errors Fluid
raises for bad arguments. One program, one run."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers
X = np.arange(12, dtype="float32").reshape(3, 4)
IDS = np.array([[1], [6], [12], [9]], dtype="int64")


@pytest.fixture(scope="module")
def got():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [3, 4], dtype="float32", append_batch_size=False)
        x.stop_gradient = False
        ids = layers.data("ids", [4, 1], dtype="int64", append_batch_size=False)
        pick = layers.assign(np.array([[3, 0], [1, 1], [0, 2]], dtype="int32"))
        which = layers.assign(np.array([[1], [0], [1]], dtype="int32"))
        outs = {
            "flip": layers.flip(x, dims=[0, 1]),
            "roll": layers.roll(x, shifts=1, dims=1),
            "roll_flat": layers.roll(x, [-2]),
            "unstack": layers.unstack(x, axis=1)[2],
            "rank": layers.rank(x),
            "shape": layers.shape(x),
            "index_select": layers.index_select(x, layers.assign(np.array([3, 0], "int64")), dim=1),
            "index_sample": layers.index_sample(x, pick),
            "nonzero": layers.nonzero(layers.less_than(x, layers.fill_constant([1], "float32", 3.0))),
            "scatter_nd_add": layers.scatter_nd_add(
                x, layers.assign(np.array([[1, 2], [1, 2]], "int64")), layers.fill_constant([2], "float32", 10.0)
            ),
            "scatter_nd": layers.scatter_nd(
                layers.assign(np.array([[2], [0]], "int64")), layers.fill_constant([2, 4], "float32", 1.0), [3, 4]
            ),
            "shard": layers.shard_index(ids, index_num=13, nshards=2, shard_id=1),
            "multiplex": layers.multiplex([x, layers.scale(x, scale=-1.0)], which),
        }
        loss = layers.reduce_sum(layers.elementwise_mul(outs["multiplex"], layers.roll(x, shifts=1, dims=1)))
        grad = fluid.backward.gradients([loss], [x])[0]
    names = list(outs)
    values = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": X, "ids": IDS}, fetch_list=[outs[n] for n in names] + [grad], scope=fluid.Scope()
    )
    result = dict(zip(names, values))
    result["grad"] = values[-1]
    return result


def test_manipulation(got):
    np.testing.assert_array_equal(got["flip"], X[::-1, ::-1])
    np.testing.assert_array_equal(got["roll"], np.roll(X, 1, axis=1))
    np.testing.assert_array_equal(got["roll_flat"], np.roll(X, -2))
    np.testing.assert_array_equal(got["unstack"], X[:, 2])
    np.testing.assert_array_equal(got["rank"], [2])
    np.testing.assert_array_equal(got["shape"], [3, 4])


def test_indexing(got):
    np.testing.assert_array_equal(got["index_select"], X[:, [3, 0]])
    np.testing.assert_array_equal(got["index_sample"], np.take_along_axis(X, np.array([[3, 0], [1, 1], [0, 2]]), 1))
    np.testing.assert_array_equal(got["nonzero"], np.argwhere(X < 3))
    want = X.copy()
    want[1, 2] += 20
    np.testing.assert_array_equal(got["scatter_nd_add"], want)
    np.testing.assert_array_equal(got["scatter_nd"], [[1] * 4, [0] * 4, [1] * 4])
    np.testing.assert_array_equal(got["shard"], [[-1], [-1], [5], [2]])  # shard size 7: ids 7..13 -> 0..6
    sign = np.array([[-1], [1], [-1]], "float32")
    np.testing.assert_array_equal(got["multiplex"], X * sign)


def test_gradient_through_multiplex_and_roll(got):
    # loss = sum(multiplex(x, -x) * roll(x)): d/dx = sign * roll(x) + roll^-1(sign * x)
    sign = np.array([[-1], [1], [-1]], "float32")
    want = sign * np.roll(X, 1, axis=1) + np.roll(sign * X, -1, axis=1)
    np.testing.assert_allclose(got["grad"], want)


def test_bad_arguments_raise_what_fluid_raises():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [3, 4], dtype="float32", append_batch_size=False)
        ids = layers.data("ids", [4, 1], dtype="int64", append_batch_size=False)
        with pytest.raises(TypeError, match="dims"):
            layers.flip(x, dims=1)
        with pytest.raises(ValueError, match="shard_id"):
            layers.shard_index(ids, 10, 2, 2)
        with pytest.raises(TypeError, match="input"):
            layers.shard_index(x, 10, 2, 0)
        with pytest.raises(ValueError, match="at least 2"):
            layers.multiplex([x], ids)
        with pytest.raises(TypeError, match="index"):
            layers.index_select(x, x)
        with pytest.raises(TypeError, match="input"):
            layers.rank(np.ones(3))
        with pytest.raises(ValueError, match="num=2"):
            layers.unstack(x, axis=0, num=2)
