"""Fluid 1.8's ``interpolate`` (image_resize's second name, now with 'BICUBIC') and ``unfold`` (im2col)
as scripts call them: Fluid's argument forms (an int or a list for sizes; paddings [h, w] meaning
[up, left, down, right] = [h, w, h, w]), shapes and values (the ops' numerics are their op cases')."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import ShapeError

layers = fluid.layers
rng = np.random.default_rng(9)
X = rng.normal(size=(2, 3, 4, 5)).astype("float32")


def _im2col(x, k, s, pad, d):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    oh, ow = (xp.shape[2] - d * (k - 1) - 1) // s + 1, (xp.shape[3] - d * (k - 1) - 1) // s + 1
    cols = [
        xp[:, :, i * s : i * s + d * (k - 1) + 1 : d, j * s : j * s + d * (k - 1) + 1 : d].reshape(n, -1)
        for i in range(oh)
        for j in range(ow)
    ]
    return np.stack(cols, axis=-1)


def test_interpolate_bicubic_and_unfold():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", list(X.shape), dtype="float32", append_batch_size=False)
        x.stop_gradient = False
        flat = layers.fill_constant([1, 1, 3, 3], "float32", 2.5)
        up = layers.interpolate(flat, out_shape=[7, 5], resample="BICUBIC", align_corners=False)
        same = layers.interpolate(x, scale=1.0, resample="BICUBIC")
        big = layers.interpolate(x, out_shape=[8, 9], resample="BICUBIC")
        cols = layers.unfold(x, kernel_sizes=2, strides=1, paddings=[1, 0], dilations=2)
        dx = fluid.backward.gradients([layers.reduce_sum(big)], [x])[0]
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": X}, fetch_list=[up, same, big, cols, dx], scope=fluid.Scope()
    )
    np.testing.assert_allclose(got[0], np.full((1, 1, 7, 5), 2.5), rtol=1e-6)  # the weights sum to 1
    np.testing.assert_array_equal(got[1], X)
    assert got[2].shape == (2, 3, 8, 9)
    np.testing.assert_allclose(got[4].sum(), 2 * 3 * 8 * 9, rtol=1e-5)  # each output gives back 1
    np.testing.assert_allclose(got[3], _im2col(X, 2, 1, [1, 0, 1, 0], 2), rtol=1e-6)
    assert cols.shape == (2, 12, 4 * 3)
    assert layers.interpolate is layers.image_resize


def test_bad_unfold_arguments_raise_assertion_errors():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = layers.data("x", [1, 2, 4, 4], dtype="float32", append_batch_size=False)
        with pytest.raises(AssertionError, match="kernel_sizes"):
            layers.unfold(x, [2, 2, 2])
        with pytest.raises(AssertionError, match="N, C, H, W"):
            layers.unfold(layers.reshape(x, [2, 16]), 2)
        with pytest.raises(ShapeError, match="no sliding block"):
            layers.unfold(x, 5)
