"""Paddle 2.0-alpha's keywords that the op tests of Fluid 1.8's release call (pe_cli/paddle/alpha_keywords.py):
taken where they name a 2.6 parameter, 2.0-alpha's behaviour where a call gives a keyword only it had,
2.6's otherwise. One program, run once."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
import pe_cli.paddle as paddle
from pe_cli.paddle.nn.functional import interpolate

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)[:, ::-1] * np.array([1, -1, 1, -1], np.float32)


@pytest.fixture(scope="module")
def results():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [2, 3, 4], "float32")
        img = fluid.data("img", [1, 1, 2, 2], "float32")
        axes = fluid.data("axes", [1], "int32")
        written = fluid.data("written", [2, 4], "float32")
        fetch = {
            "argmax_alpha": paddle.argmax(input=x),
            "argmax_2x": paddle.argmax(x),
            "sum": paddle.sum(input=x, dim=1, keep_dim=True),
            "max_out": paddle.max(input=x, dim=1, out=written),
            "written": written,
            "squeeze": paddle.squeeze(paddle.sum(x, axis=1, keepdim=True), axes=[1]),
            "unsqueeze": paddle.unsqueeze(x, axes=axes),
            "split": paddle.split(x, num_or_sections=[1, -1], dim=2)[1],
            "div": paddle.div(x, x + 100.0),
            "mul": paddle.mul(x, fluid.layers.ones([4, 2], "float32"), x_num_col_dims=2),
            "elementwise_sum": paddle.elementwise_sum([x, x]),
            "zeros": paddle.zeros([2], dtype="float32", device="cpu"),
            "resized": interpolate(img, out_shape=[3, 3]),  # 2.0-alpha's: BILINEAR, align_corners
        }
        names = list(fetch)
    feed = {
        "x": X,
        "img": np.array([[[[0, 2], [4, 6]]]], np.float32),
        "axes": np.array([1], np.int32),
        "written": np.zeros([2, 4], np.float32),
    }
    outs = fluid.Executor(fluid.CPUPlace()).run(
        main, feed=feed, fetch_list=[fetch[n] for n in names], scope=fluid.Scope()
    )
    return dict(zip(names, outs))


def test_alpha_keywords_do_what_the_2x_parameters_do(results):
    np.testing.assert_array_equal(results["argmax_alpha"], X.argmax(axis=-1))  # 2.0-alpha: the last axis
    np.testing.assert_array_equal(results["argmax_2x"], X.argmax())  # 2.6: the flattened x
    np.testing.assert_allclose(results["sum"], X.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(results["max_out"], X.max(axis=1))
    np.testing.assert_allclose(results["written"], X.max(axis=1))  # out= got the result too
    np.testing.assert_allclose(results["squeeze"], X.sum(axis=1))
    assert results["unsqueeze"].shape == (2, 1, 3, 4)
    np.testing.assert_allclose(results["split"], X[:, :, 1:])
    np.testing.assert_allclose(results["div"], X / (X + 100), rtol=1e-6)
    np.testing.assert_allclose(results["mul"], X.sum(axis=2, keepdims=True).repeat(2, axis=2), rtol=1e-6)
    np.testing.assert_allclose(results["elementwise_sum"], 2 * X)
    np.testing.assert_array_equal(results["zeros"], [0, 0])
    np.testing.assert_allclose(results["resized"][0, 0], [[0, 1, 2], [2, 3, 4], [4, 5, 6]])


def test_alpha_keyword_mistakes():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [2, 3], "float32")
        with pytest.raises(TypeError, match="both 'input'"):
            paddle.sum(x=x, input=x)
        with pytest.raises(ValueError, match="ones: device='opu' must be None, 'cpu' or 'gpu'"):
            paddle.ones([2], device="opu")
        with pytest.raises(
            TypeError,
            match="full_like: the data type of dtype is int16; it must be one of bool, float16, float32, float64, int32, int64",
        ):
            paddle.full_like(input=x, fill_value=2, dtype="int16")  # 2.0-alpha's full_like: not int16
        assert paddle.full_like(x, 2, dtype="int16").dtype == "int16"  # 2.6's takes it
        with pytest.raises(
            TypeError, match="arg_max: the data type of dtype is float32; it must be one of int32, int64"
        ):
            paddle.argmax(x, dtype="float32")
