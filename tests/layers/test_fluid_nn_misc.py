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
    got = run(
        prog,
        {"pred": np.array([[0, 1, 1, 2]], np.int64), "label": np.array([[0, 1, 2, 2]], np.int64)},
        [iou, wrong, correct],
    )
    np.testing.assert_array_equal(got[2], [1, 1, 1])
    np.testing.assert_array_equal(got[1], [0, 1, 1])
    np.testing.assert_allclose(got[0], [(1 + 0.5 + 0.5) / 3], rtol=1e-6)
    with pytest.raises(TypeError, match="mean_iou: Predictions 'f' is float32; it must be one of int32, int64"):
        layers.mean_iou(layers.data("f", [4]), label, 3)


def test_temporal_shift_moves_a_quarter_of_the_channels_each_way(prog):
    x = layers.data("x", [4, 1, 1])
    out = layers.temporal_shift(x, seg_num=2)
    xv = np.arange(8, dtype=np.float32).reshape(2, 4, 1, 1)  # one clip of two frames, 4 channels
    got = run(prog, {"x": xv}, [out])[0].reshape(2, 4)
    np.testing.assert_array_equal(got, [[0, 5, 2, 3], [0, 0, 6, 7]])  # frame 1, channel 0: frame 0's 0
    with pytest.raises(TypeError, match="temporal_shift: seg_num must be int, got float"):
        layers.temporal_shift(x, seg_num=2.0)
    with pytest.raises(TypeError, match="temporal_shift: shift_ratio must be float, got int"):
        layers.temporal_shift(x, seg_num=2, shift_ratio=1)


def test_multi_box_head_composes_the_ssd_head(prog):
    image = layers.data("image", [3, 32, 32])
    f1, f2, f3 = layers.data("f1", [4, 4, 4]), layers.data("f2", [4, 2, 2]), layers.data("f3", [4, 1, 1])
    locs, confs, box, var = layers.multi_box_head(
        inputs=[f1, f2, f3],
        image=image,
        base_size=32,
        num_classes=5,
        min_ratio=20,
        max_ratio=90,
        aspect_ratios=[[2.0], [2.0, 3.0], [2.0]],
        offset=0.5,
        flip=True,
        clip=True,
    )
    # priors per cell: 1 + 1 (max size) + 2 per ratio with flip -> 4, 6, 4; cells 16, 4, 1
    priors = 16 * 4 + 4 * 6 + 1 * 4
    assert box.shape == (priors, 4) and var.shape == (priors, 4) and box.stop_gradient
    assert locs.shape[1:] == (priors, 4) and confs.shape[1:] == (priors, 5)
    rng = np.random.default_rng(0)
    feed = {
        "image": rng.normal(size=(2, 3, 32, 32)).astype(np.float32),
        **{n: rng.normal(size=(2, 4, s, s)).astype(np.float32) for n, s in (("f1", 4), ("f2", 2), ("f3", 1))},
    }
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(fluid.default_startup_program(), scope=scope)
    got_locs, got_confs, got_box = exe.run(prog, feed=feed, fetch_list=[locs, confs, box], scope=scope)
    assert got_locs.shape == (2, priors, 4) and got_confs.shape == (2, priors, 5)
    assert np.all((got_box >= 0) & (got_box <= 1))
    with pytest.raises(ValueError, match=r"multi_box_head: inputs should be a list or tuple\."):
        layers.multi_box_head(f1, image, 32, 5, [[2.0]], min_sizes=[4.0], max_sizes=[8.0])
    with pytest.raises(
        ValueError,
        match="multi_box_head: aspect_ratios should be list or tuple, and the length of inputs and aspect_ratios should be",
    ):
        layers.multi_box_head([f1, f2, f3], image, 32, 5, [[2.0], [2.0]], min_ratio=20, max_ratio=90)
