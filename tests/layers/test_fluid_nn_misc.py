"""Fluid 1.8's mean_iou and temporal_shift layers as its users call them: outputs, values and Fluid's
TypeErrors (the ops' numerics and gradients are checked by their op cases)."""
import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def run(main, feed, fetch):
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, scope=fluid.Scope())


def test_mean_iou_of_two_class_maps(prog):
    pred, label = layers.data("pred", [4], dtype="int64"), layers.data("label", [4], dtype="int64")
    iou, wrong, correct = layers.mean_iou(pred, label, num_classes=3)
    assert iou.shape == (1,) and wrong.shape == (3,) and correct.dtype == "int32"
    got = run(prog, {"pred": np.array([[0, 1, 1, 2]], np.int64), "label": np.array([[0, 1, 2, 2]], np.int64)},
              [iou, wrong, correct])
    np.testing.assert_array_equal(got[2], [1, 1, 1])
    np.testing.assert_array_equal(got[1], [0, 1, 1])
    np.testing.assert_allclose(got[0], [(1 + 0.5 + 0.5) / 3], rtol=1e-6)
    with pytest.raises(TypeError):
        layers.mean_iou(layers.data("f", [4]), label, 3)


def test_temporal_shift_moves_a_quarter_of_the_channels_each_way(prog):
    x = layers.data("x", [4, 1, 1])
    out = layers.temporal_shift(x, seg_num=2)
    xv = np.arange(8, dtype=np.float32).reshape(2, 4, 1, 1)        # one clip of two frames, 4 channels
    got = run(prog, {"x": xv}, [out])[0].reshape(2, 4)
    np.testing.assert_array_equal(got, [[0, 5, 2, 3], [0, 0, 6, 7]])     # frame 1, channel 0: frame 0's 0
    with pytest.raises(TypeError):
        layers.temporal_shift(x, seg_num=2.0)
    with pytest.raises(TypeError):
        layers.temporal_shift(x, seg_num=2, shift_ratio=1)
