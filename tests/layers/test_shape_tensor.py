"""Shapes given at run time, as Fluid 1.8 takes them: fill_constant, uniform_random and reshape with
a shape list holding int Variables (``[fluid.layers.shape(x)[0], 1]``, Fluid's ShapeTensorList),
fill_constant with an int Variable shape (ShapeTensor) and a Variable value (ValueTensor). One
program, run at two batch sizes."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers


@pytest.fixture(scope="module")
def run():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [None, 3], "float32")
        n = layers.shape(x)[0]
        n64 = layers.cast(n, "int64")
        outs = [
            layers.fill_constant(shape=[n, 1], dtype="float32", value=2.0),
            layers.uniform_random([n64, 4], min=2.0, max=3.0),
            layers.reshape(x, [n, 3, 1]),
            layers.fill_constant(shape=layers.shape(x), dtype="int64", value=layers.fill_constant([1], "int64", 7)),
        ]
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)

    def at(batch):
        x_ = np.arange(batch * 3, dtype="float32").reshape(batch, 3)
        return x_, exe.run(main, feed={"x": x_}, fetch_list=outs, scope=scope)

    return outs, at


def test_build_time_shapes_leave_the_variable_dims_unknown(run):
    outs, _ = run
    assert [tuple(o.shape) for o in outs[:3]] == [(-1, 1), (-1, 4), (-1, 3, 1)]


@pytest.mark.parametrize("batch", [5, 2])
def test_run_time_shapes_follow_the_batch(run, batch):
    x, (filled, drawn, reshaped, like) = run[1](batch)
    np.testing.assert_array_equal(filled, np.full([batch, 1], 2.0, "float32"))
    assert drawn.shape == (batch, 4) and drawn.min() >= 2.0 and drawn.max() < 3.0
    np.testing.assert_array_equal(reshaped, x.reshape(batch, 3, 1))
    assert like.dtype == np.int64
    np.testing.assert_array_equal(like, np.full([batch, 3], 7))


def test_a_float_variable_in_a_shape_is_a_type_error():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        f = layers.fill_constant([1], "float32", 2.0)
        with pytest.raises(TypeError, match=r"shape\[0\]"):
            layers.fill_constant(shape=[f, 1], dtype="float32", value=1.0)
        with pytest.raises(
            AssertionError, match=r"The size of 'shape' in fill_constant can't be zero, but received 0\."
        ):
            layers.fill_constant(shape=[], dtype="float32", value=1.0)


def test_cuda_kernels_read_the_run_time_shape():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [None, 3], "float32")
        n = layers.shape(x)[0]
        outs = [
            layers.fill_constant(shape=[n, 2], dtype="float32", value=layers.fill_constant([1], "float32", 4.0)),
            layers.reshape(x, [n, 1, 3]),
        ]
    x_ = np.ones([4, 3], "float32")
    filled, reshaped = fluid.Executor(fluid.CUDAPlace(0)).run(
        main, feed={"x": x_}, fetch_list=outs, scope=fluid.Scope()
    )
    np.testing.assert_array_equal(filled, np.full([4, 2], 4.0, "float32"))
    np.testing.assert_array_equal(reshaped, x_.reshape(4, 1, 3))


def test_sequence_mask_takes_its_length_from_a_variable():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        src = fluid.data("src", [None, None], "int64")
        lengths = fluid.data("lengths", [None], "int64")
        mask = layers.sequence_mask(lengths, maxlen=layers.shape(src)[1], dtype="float")
    assert mask.dtype == "float32" and tuple(mask.shape) == (-1, -1)
    (got,) = fluid.Executor(fluid.CPUPlace()).run(
        main,
        feed={"src": np.zeros([2, 4], "int64"), "lengths": np.array([1, 3], "int64")},
        fetch_list=[mask],
        scope=fluid.Scope(),
    )
    np.testing.assert_array_equal(got, [[1, 0, 0, 0], [1, 1, 1, 0]])


def test_expand_times_given_by_variables():
    """test_expand_op's TestExpandAPI: expand_times as a list holding an int Variable, or one int
    Variable holding the list; Fluid 1.8's errors for a wrong x."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [2, 3], "float32")
        two = layers.fill_constant([1], "int32", 2)
        outs = [layers.expand(x, [two, 3]), layers.expand(x, layers.assign(np.array([1, 2], "int32")))]
        assert [tuple(o.shape) for o in outs] == [(-1, 9), (-1, -1)]
        with pytest.raises(
            TypeError, match="expand: x 'u8' is uint8; it must be one of bool, float32, float64, int32, int64"
        ):
            layers.expand(fluid.data("u8", [4], "uint8"), [2])
        flags = fluid.data("flags", [4], "bool")
        flags.stop_gradient = True
        with pytest.raises(ValueError, match=r"expand: a bool x must have stop_gradient=False, as Fluid 1\.8 requires"):
            layers.expand(flags, [2])
    x_ = np.arange(6, dtype="float32").reshape(2, 3)
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x_}, fetch_list=outs, scope=fluid.Scope())
    np.testing.assert_array_equal(got[0], np.tile(x_, (2, 3)))
    np.testing.assert_array_equal(got[1], np.tile(x_, (1, 2)))


def test_resize_sizes_and_scale_given_by_variables():
    """test_nearest_interp_op's TestNearestAPI / TestNearestInterpException: out_shape holding an int
    Variable (SizeTensor), a Variable scale (Scale); Fluid 1.8's ValueError / TypeError otherwise."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [1, 2, 3, 4], "float32")
        outs = [
            layers.resize_nearest(x, out_shape=[6, layers.fill_constant([1], "int32", 2)]),
            layers.resize_nearest(x, scale=layers.fill_constant([1], "float32", 2.0)),
        ]
        for bad, error, message in (
            (
                {"out_shape": [4, 8], "data_format": "NDHWC"},
                ValueError,
                r"image_resize: data_format='NDHWC' must be one of \['NCHW', 'NHWC'\]",
            ),
            ({"scale": "scale"}, TypeError, "image_resize: scale must be a float, an int or a Variable, got 'scale'"),
            ({"scale": -0.3}, ValueError, r"image_resize: scale=-0\.3 must be > 0"),
            ({"out_shape": 4}, TypeError, "image_resize: out_shape must be a list, a tuple or a Variable, got 4"),
        ):
            with pytest.raises(error, match=message):
                layers.resize_nearest(x, **bad)
    x_ = np.arange(24, dtype="float32").reshape(1, 2, 3, 4)
    sized, scaled = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x_}, fetch_list=outs, scope=fluid.Scope())
    assert sized.shape == (1, 2, 6, 2) and scaled.shape == (1, 2, 6, 8)
    np.testing.assert_array_equal(scaled, x_.repeat(2, axis=2).repeat(2, axis=3))
