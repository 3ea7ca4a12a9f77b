"""Fluid 1.8's argument errors of layers whose op tests check them (test_lrn_op, test_maxout_op,
test_isfinite_op, test_instance_norm_op, test_lod_reset_op, test_batch_norm_op, test_clip_op,
test_concat_op): a wrong dtype or type is a TypeError, a wrong value a ValueError, raised where the
layer is built."""
import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli import layers


@pytest.fixture
def program():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        yield


def test_dtype_and_type_errors(program):
    i32 = layers.data("i", shape=[3, 4, 5], dtype="int32")
    with pytest.raises(TypeError):
        layers.lrn(layers.data("l", shape=[3, 3, 3], dtype="int64"))
    with pytest.raises(TypeError):
        layers.maxout(i32, 2)
    with pytest.raises(TypeError):
        layers.isfinite(layers.data("h", shape=[10], dtype="float16", append_batch_size=False))
    with pytest.raises(TypeError):
        layers.instance_norm(i32)
    with pytest.raises(TypeError):
        layers.batch_norm(i32)
    with pytest.raises(TypeError):
        layers.lod_reset(np.ones(4), target_lod=[2, 2])
    with pytest.raises(TypeError):
        layers.lod_reset(layers.data("x", shape=[4]), layers.data("y", shape=[4], dtype="float32"))


def test_value_errors(program):
    x = fluid.data("x", shape=[2, 4, 5, 5], dtype="float32")
    with pytest.raises(ValueError):
        layers.lrn(x, data_format="NDHW")
    with pytest.raises(ValueError):
        layers.lrn(fluid.data("x5", shape=[2, 4, 5, 5, 5], dtype="float32"))
    with pytest.raises(ValueError):
        layers.maxout(x, groups=2, axis=2)
    assert layers.lrn(x).shape == (2, 4, 5, 5)


def test_mean_and_prelu_take_float_variables(program):
    i32 = fluid.data("i32", shape=[12, 10], dtype="int32")
    for bad in (12, i32):
        with pytest.raises(TypeError):
            layers.mean(bad)
    for bad in (0.1, i32):
        with pytest.raises(TypeError):
            layers.prelu(bad, "all")
