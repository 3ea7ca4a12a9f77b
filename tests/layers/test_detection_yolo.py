"""yolov3_loss as Fluid 1.8 users call it: a small detector head trained by it lowers it, its
TypeErrors and shape errors, and a YAML model naming its gt feeds (numerics and the finite-difference
check: tests/ops/cases_detection_yolo.py)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import ShapeError
from tests.cli.test_helpers import REPO, pe

layers = fluid.layers
ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119]


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main, startup


def test_a_detector_head_trained_by_it_lowers_it(prog):
    main, startup = prog
    startup.random_seed = 5  # the conv's initial filter: a fixed draw
    image = fluid.data("image", [None, 3, 16, 16], "float32")
    gt_box = fluid.data("gt_box", [None, 4, 4], "float32")
    gt_label = fluid.data("gt_label", [None, 4], "int32")
    gt_score = fluid.data("gt_score", [None, 4], "float32")
    feat = layers.conv2d(image, 2 * (5 + 3), 3, stride=4, padding=1)
    loss = layers.yolov3_loss(feat, gt_box, gt_label, ANCHORS, [0, 1], 3, 0.7, 4, gt_score=gt_score)
    assert loss.shape == (-1,)
    mean = layers.mean(loss)
    fluid.optimizer.Adam(0.01).minimize(mean)
    rng = np.random.default_rng(0)
    feed = {
        "image": rng.normal(size=(4, 3, 16, 16)).astype(np.float32),
        "gt_box": np.c_[rng.uniform(0.1, 0.9, (16, 2)), rng.uniform(0.1, 0.4, (16, 2))]
        .reshape(4, 4, 4)
        .astype(np.float32),
        "gt_label": rng.integers(0, 3, (4, 4)).astype(np.int32),
        "gt_score": np.ones((4, 4), np.float32),
    }
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    losses = [float(exe.run(main, feed=feed, fetch_list=[mean], scope=scope)[0]) for _ in range(40)]
    assert losses[-1] < 0.6 * losses[0], losses


def test_mistakes(prog):
    x = fluid.data("x", [None, 20, 5, 5], "float32")
    box = fluid.data("box", [None, 6, 4], "float32")
    label = fluid.data("label", [None, 6], "int32")
    with pytest.raises(TypeError, match="ignore_thresh must be a float"):
        layers.yolov3_loss(x, box, label, ANCHORS, [0, 1], 5, 1, 32)
    with pytest.raises(TypeError, match="class_num must be an int"):
        layers.yolov3_loss(x, box, label, ANCHORS, [0, 1], 5.0, 0.7, 32)
    with pytest.raises(ShapeError, match=r"must be \[N, len\(anchor_mask\) \* \(5 \+ class_num\) = 16, H, W\]"):
        layers.yolov3_loss(x, box, label, ANCHORS, [0, 1], 3, 0.7, 32)
    with pytest.raises(ShapeError, match=r"anchor_mask \[0, 9\] must pick anchors 0..5"):
        layers.yolov3_loss(x, box, label, ANCHORS, [0, 9], 5, 0.7, 32)
    # a grid with H != W: Fluid 1.8.5 and Paddle 2.6.2 refuse it (measured: "Input(X) dim[3] and dim[4]
    # should be euqal"), where pe computed a loss over X's height for both axes
    wide = fluid.data("wide", [None, 20, 5, 7], "float32")
    with pytest.raises(ShapeError, match=r"must have H == W \(a square grid\)"):
        layers.yolov3_loss(wide, box, label, ANCHORS, [0, 1], 5, 0.7, 32)


MODEL = """
name: yolo
feeds:
  image:    {shape: [3, 16, 16], dtype: float32}
  gt_box:   {shape: [4, 4], dtype: float32}
  gt_label: {shape: [4], dtype: int32}
layers:
  - head: {type: conv2d, input: image, num_filters: 16, filter_size: 3, stride: 4, padding: 1}
  - yolo: {type: yolov3_loss, x: head, gt_box: gt_box, gt_label: gt_label, anchors: [10, 13, 16, 30],
           anchor_mask: [0, 1], class_num: 3, ignore_thresh: 0.7, downsample_ratio: 4}
  - loss: {type: mean, x: yolo}
loss: loss
"""


def test_a_yaml_model_names_its_gt_feeds(tmp_path):
    (tmp_path / "yolo.yaml").write_text(MODEL)
    proc = pe("summary", tmp_path / "yolo.yaml", env={"PYTHONPATH": REPO})  # this checkout's pe_cli
    assert proc.returncode == 0, proc.stderr
    assert any("yolo (yolov3_loss)" in line and "[-1]" in line for line in proc.stdout.splitlines()), proc.stdout
