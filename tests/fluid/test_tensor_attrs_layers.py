"""Fluid 1.8's layers that take an attribute as a Variable read at run time (what Paddle's op tests
test_slice_op, test_strided_slice_op, test_concat_op, test_adam_op and test_batch_norm_op build),
and the op-test pieces beside them: numpy arrays as attributes, ``BlockDesc.var``, and eager
variables whose LoD is set after they are made. References are numpy's."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli import layers


def _run(build, feed=None):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fetch = build()
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed or {}, fetch_list=fetch, scope=scope), main


X = np.arange(3 * 4 * 5, dtype="float64").reshape(3, 4, 5)


def test_slice_bounds_from_variables_and_variable_indexing():
    def build():
        x = layers.data("x", shape=[3, 4, 5], dtype="float64", append_batch_size=False)
        minus_3 = layers.fill_constant([1], "int32", -3)
        minus_1 = layers.fill_constant([1], "int32", -1)
        starts = layers.data("starts", shape=[2], dtype="int32", append_batch_size=False)
        return [
            layers.slice(x, axes=[0, 2], starts=[minus_3, 1], ends=[3, minus_1]),
            layers.slice(x, axes=[0, 2], starts=starts, ends=[2, 100]),
            layers.strided_slice(x, axes=[2], starts=[minus_1], ends=[0], strides=[-2]),
            x[minus_1, 1:3, minus_3:minus_1],
        ]

    (a, b, c, d), _ = _run(build, {"x": X, "starts": np.array([1, 2], dtype="int32")})
    np.testing.assert_array_equal(a, X[-3:3, :, 1:-1])
    np.testing.assert_array_equal(b, X[1:2, :, 2:])
    np.testing.assert_array_equal(c, X[:, :, -1:0:-2])
    np.testing.assert_array_equal(d, X[-1, 1:3, -3:-1])


def test_concat_axis_from_a_variable_and_its_type_checks():
    def build():
        x = layers.data("x", shape=[2, 3], dtype="float64", append_batch_size=False)
        y = layers.data("y", shape=[2, 2], dtype="float64", append_batch_size=False)
        axis = layers.fill_constant([1], "int64", 1)
        out = layers.concat([x, y], axis=axis)
        assert out.shape == (-1, -1)  # Fluid's: known at run time only
        return [out]

    xv, yv = np.ones((2, 3)), np.zeros((2, 2))
    (out,), _ = _run(build, {"x": xv, "y": yv})
    np.testing.assert_array_equal(out, np.concatenate([xv, yv], axis=1))
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        u8 = layers.data("u", shape=[4], dtype="uint8")
        with pytest.raises(
            TypeError,
            match=r"concat: input\[0\] 'u' is uint8; it must be one of float16, float32, float64, int32, int64",
        ):
            layers.concat([u8, u8])
        with pytest.raises(TypeError, match=r"concat: axis must be int\|Variable, got float"):
            layers.concat([layers.data("f", shape=[4])] * 2, 3.2)
        with pytest.raises(TypeError, match="clip: x 'i' is int32; it must be one of float16, float32, float64"):
            layers.clip(layers.data("i", shape=[4], dtype="int32"), -1.0, 1.0)


def test_adam_with_variable_betas_steps_as_fluid():
    """beta1 0.5 and beta2 0.6 as Variables: beta^t accumulators start at Fluid's 0.9 / 0.999."""

    def build():
        x = layers.data("x", shape=[1], dtype="float64", append_batch_size=False)
        w = layers.create_parameter([1], "float64", name="w", default_initializer=fluid.initializer.Constant(0.0))
        loss = layers.reduce_sum(layers.elementwise_mul(w, x))
        b1 = layers.create_global_var([1], 0.5, "float64", persistable=True)
        b2 = layers.create_global_var([1], 0.6, "float64", persistable=True)
        fluid.optimizer.Adam(learning_rate=1.0, beta1=b1, beta2=b2, epsilon=0.1).minimize(loss)
        return [w]

    (w,), main = _run(build, {"x": np.ones([1])})
    adam = next(op for op in main.global_block().ops if op.type == "adam")
    assert adam.input("Beta1Tensor") and adam.input("Beta2Tensor")
    m, v = 0.5 * 1.0, 0.4 * 1.0  # (1 - beta) * g, (1 - beta2) * g^2
    lr_t = np.sqrt(1 - 0.999) / (1 - 0.9)
    assert w[0] == pytest.approx(-lr_t * m / (np.sqrt(v) + 0.1), rel=1e-12)


def test_numpy_attributes_and_block_desc_var():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", shape=[2, 3], dtype="float64", append_batch_size=False)
        out = main.global_block().create_var(name="o", dtype="float64")
        op = main.global_block().append_op(
            "clip", {"X": [x]}, {"Out": [out]}, {"min": np.float32(-1.0), "max": np.array(1.0)}
        )
    assert op.attrs["min"] == -1.0 and type(op.attrs["max"]) is float
    desc = main.global_block().desc
    assert desc.find_var(b"made") is None
    desc.var(b"made").set_dtype(fluid.core.VarDesc.VarType.FP64)
    assert main.global_block().var("made").dtype == "float64" and desc.has_var("made")


def test_eager_variable_takes_the_level_of_the_lod_set_on_its_value():
    with fluid.dygraph.guard(fluid.CPUPlace()):
        v = fluid.dygraph.to_variable(np.ones((5, 1), dtype="float32"))
        assert v.lod_level == 0
        v.value().get_tensor().set_recursive_sequence_lengths([[2, 3]])
        assert v.lod_level == 1


def test_paddle_add_alpha_and_out_of_paddle_2_0_alpha():
    """paddle.add(x, y, alpha=, out=) and an activation's out= (Paddle 2.0-alpha's, which 1.8's op tests
    call): x + alpha * y, the result written to ``out`` too."""
    import pe_cli.paddle as paddle

    def build():
        x = layers.data("x", shape=[3], dtype="float32", append_batch_size=False)
        y = layers.data("y", shape=[3], dtype="float32", append_batch_size=False)
        res = layers.data("res", shape=[3], dtype="float32", append_batch_size=False)
        return [paddle.add(x, y, alpha=-0.5), paddle.add(x, y, out=res), res, paddle.tanh(x, out=x), x]

    xv, yv = np.array([2, 3, 4], "float32"), np.array([1, 5, 2], "float32")
    (z, s, res, t, x_after), _ = _run(build, {"x": xv, "y": yv, "res": np.zeros(3, "float32")})
    np.testing.assert_array_equal(z, [1.5, 0.5, 3.0])
    np.testing.assert_array_equal(s, xv + yv)
    np.testing.assert_array_equal(res, xv + yv)
    np.testing.assert_allclose(t, np.tanh(xv), rtol=1e-6)
    np.testing.assert_array_equal(x_after, t)


def test_layers_of_the_fourth_session_take_variables():
    """unsqueeze's axes, split's dim and sections, crop_tensor's shape and offsets, pad2d's paddings,
    one_hot's depth, pow's factor given by Variables; stack and concat of a tensor array."""

    def build():
        x = layers.data("x", shape=[3, 4, 5], dtype="float64", append_batch_size=False)
        two, one = layers.fill_constant([1], "int32", 2), layers.fill_constant([1], "int64", 1)
        ids = layers.data("ids", shape=[3, 1], dtype="int64", append_batch_size=False)
        array = layers.create_array("float64")
        for i in range(2):
            layers.array_write(x, layers.fill_constant([1], "int64", i), array)
        img = layers.reshape(x, [1, 3, 4, 5])
        return [
            layers.unsqueeze(x, axes=[two, 0]),
            layers.split(x, 2, dim=layers.fill_constant([1], "int32", 1))[1],
            layers.split(x, [two, 3], dim=2)[1],
            layers.crop_tensor(x, shape=[2, two, -1], offsets=[one, 1, 2]),
            layers.pad2d(img, paddings=layers.assign(np.array([0, 1, 2, 0], np.int32))),
            layers.one_hot(ids, layers.fill_constant([1], "int32", 4)),
            layers.pow(x, factor=layers.fill_constant([1], "float32", 2.0)),
            layers.stack(array, axis=1),
            layers.concat(array, axis=0),
        ]

    outs, _ = _run(build, {"x": X, "ids": np.array([[3], [0], [1]], dtype="int64")})
    unsq, half, part, crop, pad, hot, sq, stacked, joined = outs
    assert unsq.shape == (1, 3, 4, 1, 5)  # inserted one after another: at 2, then at 0
    np.testing.assert_array_equal(half, X[:, 2:])
    np.testing.assert_array_equal(part, X[:, :, 2:])
    np.testing.assert_array_equal(crop, X[1:3, 1:3, 2:])
    np.testing.assert_array_equal(pad, np.pad(X[None], [(0, 0), (0, 0), (0, 1), (2, 0)]))
    np.testing.assert_array_equal(hot, np.eye(4)[[3, 0, 1]])
    np.testing.assert_array_equal(sq, X**2)
    np.testing.assert_array_equal(stacked, np.stack([X, X], axis=1))
    np.testing.assert_array_equal(joined, np.concatenate([X, X], axis=0))
