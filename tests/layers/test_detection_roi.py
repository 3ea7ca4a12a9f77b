"""The RoI layers (layers/detection_roi.py) as Fluid 1.8 users call them: rois fed as a LoDTensor
(one level: rois per image) or with rois_num / batch_roi_nums, the values equal to the op cases'
numpy references, mistakes reported at build time or as one line naming the layer, gradients reaching
the feature map, and a YAML model naming a rois feed (numerics and finite-difference checks: the op
cases in tests/ops/cases_detection_roi.py)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError, ShapeError
from tests.cli.test_helpers import REPO, pe
from tests.ops.cases_detection_roi import _prroi_ref, _psroi_ref, _roi_align_ref, _roi_pool_ref

layers = fluid.layers
rng = np.random.default_rng(5)
BOXES = np.array([[0, 0, 7, 5], [2.6, 1.2, 9.4, 10.7], [4, 2, 15, 11], [1, 3, 3, 4]], np.float32)


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def _run(prog, feed, fetch):
    return fluid.Executor(fluid.CPUPlace()).run(prog, feed=feed, fetch_list=fetch, scope=fluid.Scope())


def test_shapes_and_values_with_lod_rois(prog):
    x = fluid.data("x", [None, 12, 6, 8], "float32")
    rois = fluid.data("rois", [None, 4], "float32", lod_level=1)
    pool = layers.roi_pool(x, rois, pooled_height=2, pooled_width=3, spatial_scale=0.5)
    align = layers.roi_align(x, rois, 2, 2, 0.5, sampling_ratio=2)
    ps = layers.psroi_pool(x, rois, output_channels=2, spatial_scale=0.5, pooled_height=2, pooled_width=3)
    pr = layers.prroi_pool(x, rois, spatial_scale=0.5, pooled_height=3, pooled_width=2)
    assert pool.shape == (-1, 12, 2, 3) and align.shape == (-1, 12, 2, 2)
    assert ps.shape == (-1, 2, 2, 3) and pr.shape == (-1, 12, 3, 2)
    xv = rng.normal(size=(2, 12, 6, 8)).astype(np.float32)
    feed_rois = fluid.create_lod_tensor(BOXES, [[1, 3]], fluid.CPUPlace())
    got = _run(prog, {"x": xv, "rois": feed_rois}, [pool, align, ps, pr])
    ins = {"X": xv.astype(np.float64), "ROIs": fluid.LoDTensor(BOXES.astype(np.float64), [[0, 1, 4]])}
    attrs = {"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.5}
    want = [
        _roi_pool_ref(ins, attrs)["Out"],
        _roi_align_ref(ins, dict(attrs, pooled_width=2, sampling_ratio=2))["Out"],
        _psroi_ref(ins, dict(attrs, output_channels=2))["Out"],
        _prroi_ref(ins, dict(attrs, pooled_height=3, pooled_width=2))["Out"],
    ]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_rois_num_and_batch_roi_nums_say_which_image(prog):
    x = fluid.data("x", [None, 2, 6, 8], "float32")
    rois = fluid.data("rois", [None, 4], "float32")
    num = fluid.data("num", [None], "int32")
    num64 = fluid.data("num64", [None], "int64")
    align = layers.roi_align(x, rois, 2, 2, 1.0, rois_num=num)
    pool = layers.roi_pool(x, rois, 2, 2, 1.0, rois_num=num)
    pr = layers.prroi_pool(x, rois, 1.0, 2, 2, batch_roi_nums=num64)
    xv = rng.normal(size=(2, 2, 6, 8)).astype(np.float32)
    got = _run(
        prog,
        {"x": xv, "rois": BOXES, "num": np.array([3, 1], np.int32), "num64": np.array([3, 1], np.int64)},
        [align, pool, pr],
    )
    # the last roi is image 1's: the same roi over image 1 alone gives the same rows
    only = _run(
        prog,
        {"x": xv[1:], "rois": BOXES[3:], "num": np.array([1], np.int32), "num64": np.array([1], np.int64)},
        [align, pool, pr],
    )
    for g, o in zip(got, only):
        np.testing.assert_allclose(g[3:], o, rtol=1e-6)
        assert not np.allclose(
            g[3:],
            _run(
                prog,
                {"x": xv[:1], "rois": BOXES[3:], "num": np.array([1], np.int32), "num64": np.array([1], np.int64)},
                [align, pool, pr],
            )[0],
        )


def test_gradient_reaches_the_feature_map(prog):
    x = fluid.data("x", [None, 3, 6, 8], "float32")
    x.stop_gradient = False
    rois = fluid.data("rois", [None, 4], "float32", lod_level=1)
    loss = layers.mean(layers.roi_align(x, rois, 2, 2, 0.5))
    fluid.backward.append_backward(loss)
    xv = rng.normal(size=(2, 3, 6, 8)).astype(np.float32)
    (g,) = _run(
        prog, {"x": xv, "rois": fluid.create_lod_tensor(BOXES[:2], [[1, 1]], fluid.CPUPlace())}, [x.name + "@GRAD"]
    )
    # a mean of bilinear averages: each roi's weights add up to 1 over its image and channel
    np.testing.assert_allclose(g.sum(axis=(2, 3)), np.full((2, 3), 1 / 6), rtol=1e-5)


def test_mistakes_are_one_line(prog):
    x = fluid.data("x", [None, 12, 6, 8], "float32")
    rois = fluid.data("rois", [None, 4], "float32", lod_level=1)
    with pytest.raises(ShapeError, match=r"output_channels \* pooled_height \* pooled_width = 5 \* 2 \* 2 = 20"):
        layers.psroi_pool(x, rois, 5, 1.0, 2, 2)
    with pytest.raises(ShapeError, match=r"ROIs \[-1, 5\] must be \[num_rois, 4\]"):
        layers.roi_pool(x, fluid.data("bad", [None, 5], "float32"))  # (roi_align: checked when it runs)
    with pytest.raises(PeError, match="pooled_height=0"):
        layers.roi_pool(x, rois, pooled_height=0)
    # Fluid 1.8: float32 only
    for bad, says in (
        (fluid.data("i64", [2, 3, 16, 16], "int64"), "'i64' is int64; it must be one of float32"),
        ([[1, 2, 3, 4]], "must be Variable, got list"),
    ):
        with pytest.raises(TypeError, match=f"prroi_pool: input {says}"):
            layers.prroi_pool(bad, rois, 0.25, 2, 2)
        with pytest.raises(TypeError, match=f"prroi_pool: rois {says}"):
            layers.prroi_pool(x, bad, 0.25, 2, 2)
        with pytest.raises(TypeError, match=f"roi_pool: input {says}"):
            layers.roi_pool(bad, rois, 1, 1, 1.0)
    out = layers.roi_align(x, rois, 2, 2)
    xv = np.zeros((2, 12, 6, 8), np.float32)
    with pytest.raises(
        PeError,
        match=r"roi_align: the ROIs' LoD \[0, 1, 2, 4\] must give the rois of each of X's "
        r"2 images, 4 in all",
    ):
        _run(prog, {"x": xv, "rois": fluid.create_lod_tensor(BOXES, [[1, 1, 2]], fluid.CPUPlace())}, [out])
    with pytest.raises(PeError, match="ROIs has no LoD saying which image each roi is in"):
        _run(prog, {"x": xv, "rois": BOXES}, [out])


MODEL = """
name: rois
feeds:
  image: {shape: [3, 16, 16], dtype: float32}
  boxes: {shape: [4], dtype: float32, lod_level: 1}
layers:
  - conv:  {type: conv2d, input: image, num_filters: 8, filter_size: 3, padding: 1}
  - align: {type: roi_align, input: conv, rois: boxes, pooled_height: 2, pooled_width: 2, spatial_scale: 0.5}
  - pool:  {type: roi_pool, input: conv, rois: boxes, pooled_height: 3, pooled_width: 3}
  - ps:    {type: psroi_pool, input: conv, rois: boxes, output_channels: 2, spatial_scale: 1.0,
           pooled_height: 2, pooled_width: 2}
loss: null
fetches: [align, pool, ps]
"""


def test_a_yaml_model_names_its_rois_feed(tmp_path):
    (tmp_path / "rois.yaml").write_text(MODEL)
    proc = pe("summary", tmp_path / "rois.yaml", env={"PYTHONPATH": REPO})  # this checkout's pe_cli
    assert proc.returncode == 0, proc.stderr
    for name, shape in (("align", "[-1, 8, 2, 2]"), ("pool", "[-1, 8, 3, 3]"), ("ps", "[-1, 2, 2, 2]")):
        assert any(name in line and shape in line for line in proc.stdout.splitlines()), proc.stdout


def test_deformable_roi_pooling_moves_its_bins_and_trains_trans(prog):
    from tests.ops.cases_detection_roi import deform_ref as _ref

    x = fluid.data("x", [None, 8, 7, 8], "float32")
    x.stop_gradient = False
    rois = fluid.data("rois", [None, 4], "float32", lod_level=1)
    trans = fluid.data("trans", [None, 2, 2, 2], "float32")
    trans.stop_gradient = False
    out = layers.deformable_roi_pooling(
        x,
        rois,
        trans,
        spatial_scale=0.5,
        group_size=[2, 2],
        pooled_height=2,
        pooled_width=2,
        sample_per_part=2,
        position_sensitive=True,
    )
    plain = layers.deformable_roi_pooling(
        x, rois, trans, no_trans=True, spatial_scale=0.5, pooled_height=2, pooled_width=2, sample_per_part=2
    )
    assert out.shape == (-1, 2, 2, 2) and plain.shape == (-1, 8, 2, 2)
    fluid.backward.append_backward(layers.mean(out))
    boxes = np.array([[1, 2, 12, 9], [4, 3, 11, 14], [0, 0, 13, 13]], np.float32)
    xv, tv = rng.normal(size=(2, 8, 7, 8)).astype(np.float32), rng.uniform(-1, 1, (3, 2, 2, 2)).astype(np.float32)
    got, got_plain, g_trans = _run(
        prog,
        {"x": xv, "rois": fluid.create_lod_tensor(boxes, [[1, 2]], fluid.CPUPlace()), "trans": tv},
        [out, plain, trans.name + "@GRAD"],
    )
    ins = {
        "Input": xv.astype(np.float64),
        "ROIs": fluid.LoDTensor(boxes.astype(np.float64), [[0, 1, 3]]),
        "Trans": tv.astype(np.float64),
    }
    attrs = {
        "no_trans": False,
        "spatial_scale": 0.5,
        "output_dim": 2,
        "group_size": [2, 2],
        "pooled_height": 2,
        "pooled_width": 2,
        "part_size": [2, 2],
        "sample_per_part": 2,
        "trans_std": 0.1,
    }
    np.testing.assert_allclose(got, _ref(ins, attrs)["Output"], rtol=1e-5, atol=1e-6)
    ins.pop("Trans")
    np.testing.assert_allclose(
        got_plain,
        _ref(ins, dict(attrs, no_trans=True, output_dim=8, group_size=[1, 1]))["Output"],
        rtol=1e-5,
        atol=1e-6,
    )
    assert g_trans.shape == tv.shape and np.abs(g_trans).sum() > 0


def test_roi_perspective_transform_warps_quads(prog):
    from tests.ops.cases_detection_roi import _QUADS, persp_ref as _ref

    x = fluid.data("x", [None, 2, 8, 9], "float32")
    rois = fluid.data("rois", [None, 8], "float32", lod_level=1)
    out, mask, matrix = layers.roi_perspective_transform(x, rois, 4, 5, spatial_scale=1.0)
    assert out.shape == (-1, 2, 4, 5) and mask.shape == (-1, 1, 4, 5) and matrix.shape == (-1, 9)
    xv = rng.normal(size=(2, 2, 8, 9)).astype(np.float32)
    got = _run(
        prog,
        {"x": xv, "rois": fluid.create_lod_tensor(_QUADS.astype(np.float32), [[1, 2]], fluid.CPUPlace())},
        [out, mask, matrix],
    )
    want = _ref(
        {"X": xv.astype(np.float64), "ROIs": fluid.LoDTensor(_QUADS, [[0, 1, 3]])},
        {"transformed_height": 4, "transformed_width": 5, "spatial_scale": 1.0},
    )
    np.testing.assert_allclose(got[0], want["Out"], rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(got[1], want["Mask"])
    np.testing.assert_allclose(got[2], want["TransformMatrix"], rtol=1e-5, atol=1e-6)
    # the axis-aligned rectangle [2, 9] x [3, 8] maps the 4 x 5 grid's corners onto its corners
    np.testing.assert_allclose(got[2][1].reshape(3, 3) @ [4, 3, 1], [9, 8, 1], atol=1e-3)
