"""The padding and cropping layers (layers/padding.py) as Fluid 1.8 users call them: shapes at build
time, mistakes reported there, values when run (numerics: their op cases)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import ShapeError

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def run(main, feed, fetch):
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, scope=fluid.Scope())


def test_pad_and_pad2d_shapes_and_values(prog):
    x = layers.data("x", [1, 2, 3], dtype="float32")
    p = layers.pad(x, [0, 0, 1, 0, 0, 0, 2, 1], pad_value=9.0)
    e = layers.pad2d(x, paddings=[1, 0, 0, 2], mode="edge")
    assert p.shape == (-1, 2, 2, 6) and e.shape == (-1, 1, 3, 5)
    xv = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
    got_p, got_e = run(prog, {"x": xv}, [p, e])
    np.testing.assert_array_equal(got_p[0, 1], [[9, 9, 0, 1, 2, 9], [9, 9, 3, 4, 5, 9]])
    np.testing.assert_array_equal(got_e[0, 0], [[0, 1, 2, 2, 2], [0, 1, 2, 2, 2], [3, 4, 5, 5, 5]])


def test_pad2d_mistakes(prog):
    x = layers.data("x", [1, 2, 3], dtype="float32")
    with pytest.raises(ShapeError, match="reflect padding"):
        layers.pad2d(x, paddings=[2, 0, 0, 0], mode="reflect")
    given = layers.pad2d(x, paddings=layers.data("p", [4], dtype="int32", append_batch_size=False))
    assert given.shape == (-1, 1, -1, -1)  # Fluid's Paddings tensor: the sizes come at run time


def test_crop_and_pad_constant_like(prog):
    x = layers.data("x", [4, 5], dtype="float32", append_batch_size=False)
    small = layers.crop_tensor(x, shape=[2, -1], offsets=[1, 2])
    like = layers.crop(x, shape=layers.data("y", [3, 3], append_batch_size=False), offsets=[1, 1])
    padded = layers.pad_constant_like(x, small, pad_value=-1.0)
    assert small.shape == (2, 3) and like.shape == (3, 3) and padded.shape == (4, 5)
    xv = np.arange(20, dtype=np.float32).reshape(4, 5)
    got_s, got_l, got_p = run(prog, {"x": xv, "y": np.zeros((3, 3), np.float32)}, [small, like, padded])
    np.testing.assert_array_equal(got_s, xv[1:3, 2:5])
    np.testing.assert_array_equal(got_l, xv[1:4, 1:4])
    assert (got_p[:2, :3] == xv[1:3, 2:5]).all() and (got_p[2:] == -1).all() and (got_p[:, 3:] == -1).all()
    with pytest.raises(ShapeError, match="does not fit in X"):
        layers.crop(x, shape=[3, 3], offsets=[2, 0])
