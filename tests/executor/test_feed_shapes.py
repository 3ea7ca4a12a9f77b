"""Which fed shapes fit a checked data variable (fluid.data / paddle.static.data), by the rule of
Fluid 1.8.5's and Paddle 2.6.2's diff_tensor_shape (both measured, same outcome): a value with more
dims than declared, or a 0-D value for a declared shape with dims, does not fit; one with fewer dims
fits when its leading dims do, and runs as it is. A Python number fed to a 0-D variable stays 0-D.
Also Paddle 2.x's string places for the Executor, and a data variable declared twice."""

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.base.errors import FeedError
from pe_cli.base.places import place_named as _place_named

# (declared, fed, fits), measured on Fluid 1.8.5 and Paddle 2.6.2 (Executor.run of x * 2)
MEASURED = [
    ([-1, 1], [6], True),
    ([-1, 2], [6], True),
    ([-1, 1], [6, 1, 1], False),
    ([-1, 3, 1], [2, 3], True),
    ([-1, 1, 1], [2], True),
    ([2, 1], [2], True),
    ([-1], [6, 1], False),
    ([-1, 4], [2, 4, 1], False),
    ([3], [3, 1], False),
    ([1], [], False),
    ([-1, 4], [2, 5], False),
    ([3, 4], [2], False),
]


@pytest.mark.parametrize("declared,fed,fits", MEASURED, ids=[f"{d}<-{f}" for d, f, _ in MEASURED])
def test_fed_shapes_fit_as_in_fluid_and_paddle(declared, fed, fits):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data(name="x", shape=declared, dtype="float32")
        doubled = fluid.layers.scale(x, 2.0)
    exe = fluid.Executor(fluid.CPUPlace())
    value = np.arange(int(np.prod(fed)), dtype="float32").reshape(fed)
    if not fits:
        with pytest.raises(FeedError, match="'x': expected shape"):
            exe.run(main, feed={"x": value}, fetch_list=[doubled])
        return
    (out,) = exe.run(main, feed={"x": value}, fetch_list=[doubled])
    np.testing.assert_array_equal(out, 2 * value)  # as it is: the fed shape


def test_a_number_fed_to_a_0d_variable_is_0d_and_to_others_shape_1():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        scalar = paddle.static.data("s", [], "int32")
        row = paddle.static.data("r", [1], "int32")
        outs = [paddle.scale(scalar, 2.0), paddle.scale(row, 2.0)]
    got = paddle.static.Executor("cpu").run(main, feed={"s": 3, "r": 4}, fetch_list=outs)
    assert got[0].shape == () and got[0] == 6 and got[1].shape == (1,) and got[1][0] == 8


def test_executor_takes_paddles_place_names():
    assert isinstance(paddle.static.Executor("cpu").place, fluid.CPUPlace)
    assert _place_named("gpu:1") == fluid.CUDAPlace(1) and _place_named("GPU") == fluid.CUDAPlace(0)
    with pytest.raises(ValueError, match="'cpu', 'gpu' or 'gpu:N'"):
        paddle.static.Executor("tpu")


def test_a_data_variable_declared_again_with_another_shape_or_dtype_is_a_value_error():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        first = paddle.static.data("x", [2, 3], "float32")
        assert paddle.static.data("x", [2, 3], "float32") is first
        with pytest.raises(ValueError, match="has been created before. the previous shape is \\(2, 3\\)"):
            paddle.static.data("x", [2], "float32")
        with pytest.raises(ValueError, match="previous data type is float32"):
            paddle.static.data("x", [2, 3], "int64")
