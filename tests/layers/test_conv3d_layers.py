"""conv3d and conv3d_transpose as Fluid 1.8 users call them: Fluid's padding forms ("SAME", "VALID",
3 or 6 ints, 5 pairs), groups, NDHWC, output_size giving the filter size; shapes at build time, values
against conv2d on a depth of one, and Fluid's errors (the ops' numerics are checked by their op cases)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main, startup


def test_conv3d_shapes_for_fluids_padding_forms(prog):
    x = layers.data("x", [4, 6, 8, 8])
    assert layers.conv3d(x, 5, 3, padding="SAME", stride=2).shape == (-1, 5, 3, 4, 4)
    assert layers.conv3d(x, 5, 3, padding="VALID").shape == (-1, 5, 4, 6, 6)
    assert layers.conv3d(x, 6, [1, 3, 3], padding=[0, 1, 1], groups=2).shape == (-1, 6, 6, 8, 8)
    assert layers.conv3d(x, 2, 3, padding=[0, 0, 1, 1, 2, 2]).shape == (-1, 2, 4, 8, 10)
    assert layers.conv3d(x, 2, 3, padding=[[0, 0], [0, 0], [1, 1], [0, 0], [0, 1]]).shape == (-1, 2, 6, 6, 7)
    xl = layers.data("xl", [6, 8, 8, 4])
    assert layers.conv3d(xl, 3, 3, padding=1, data_format="NDHWC").shape == (-1, 6, 8, 8, 3)
    t = layers.conv3d_transpose(x, 3, output_size=[8, 10, 10], padding=1, stride=[1, 1, 1])
    assert t.shape == (-1, 3, 8, 10, 10)


def test_conv3d_on_a_depth_of_one_equals_conv2d_and_trains(prog):
    main, startup = prog
    x3 = layers.data("x3", [2, 1, 5, 5])
    x2 = layers.reshape(x3, [-1, 2, 5, 5])
    attr = fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1))
    y3 = layers.conv3d(x3, 3, [1, 3, 3], padding=[0, 1, 1], param_attr=attr, bias_attr=False, act="relu")
    y2 = layers.conv2d(x2, 3, 3, padding=1, param_attr=attr, bias_attr=False, act="relu")
    up = layers.conv3d_transpose(y3, 2, filter_size=[1, 2, 2], stride=[1, 2, 2])
    assert up.shape == (-1, 2, 1, 10, 10)
    loss = layers.mean(up)
    fluid.optimizer.SGD(0.1).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    feed = {"x3": np.random.default_rng(0).normal(size=(2, 2, 1, 5, 5)).astype(np.float32)}
    a, b, l0 = exe.run(main, feed=feed, fetch_list=[y3, y2, loss], scope=scope)
    np.testing.assert_allclose(a[:, :, 0], b, rtol=1e-5, atol=1e-6)
    l1 = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0]
    assert l1 < l0


def test_conv3d_refuses_what_fluid_refuses(prog):
    x = layers.data("x", [4, 6, 8, 8])
    with pytest.raises(ValueError, match="conv3d: unknown padding 'FULL'; it can only be 'SAME' or 'VALID'"):
        layers.conv3d(x, 2, 3, padding="FULL")
    with pytest.raises(
        ValueError, match="conv3d: the number of input channels must be divisible by groups; got 4 channels, groups=3"
    ):
        layers.conv3d(x, 2, 3, groups=3)
    with pytest.raises(ValueError, match="conv3d: data_format should be 'NCDHW' or 'NDHWC', got 'NCHW'"):
        layers.conv3d(x, 2, 3, data_format="NCHW")
    with pytest.raises(
        ValueError,
        match=r"conv3d: non-zero padding \[\[1, 1\], \[0, 0\], \[0, 0\], \[0, 0\], \[0, 0\]\] in the batch or channel dimensions is not",
    ):
        layers.conv3d(x, 2, 3, padding=[[1, 1], [0, 0], [0, 0], [0, 0], [0, 0]])
    with pytest.raises(ValueError, match="conv3d_transpose: output_size must be set when filter_size is None"):
        layers.conv3d_transpose(x, 2)
    with pytest.raises(TypeError, match="Input of conv3d_transpose must be Variable"):
        layers.conv3d_transpose(np.zeros((1, 4, 6, 8, 8)), 2, filter_size=3)
    # a filter of no elements: Paddle 2.6's ValueError (test_conv3d_op.py's TestConv3DAPI_Error), not a division by 0
    with pytest.raises(ValueError, match=r"conv3d: filter_size \[0, 0, 0\] over 4 channels has no elements"):
        layers.conv3d(x, 0, 0)
