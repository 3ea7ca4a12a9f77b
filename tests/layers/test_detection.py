"""The detection layers (prior_box ... target_assign) as Fluid 1.8 users call them: output shapes,
the LoD multiclass_nms gives (over the images, or [[-1]] with LoD [0, 1] when nothing is kept),
detection_output as its composition, and mistakes at build or run time (numerics: the op cases in
tests/ops/cases_detection_box.py and cases_detection_nms.py)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.framework.lod_tensor import LoDTensor
from tests.ops.cases_detection_box import coder_ref
from tests.ops.cases_detection_nms import matrix_ref, nms_ref

layers = fluid.layers
rng = np.random.default_rng(5)


@pytest.fixture
def progs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main, startup


def _run(progs, feed, fetch, return_numpy=True):
    exe = fluid.Executor(fluid.CPUPlace())
    return exe.run(progs[0], feed=feed, fetch_list=fetch, scope=fluid.Scope(), return_numpy=return_numpy)


def test_prior_box_shapes_and_first_boxes(progs):
    feat = layers.data("feat", [8, 4, 5], dtype="float32")
    image = layers.data("image", [3, 10, 12], dtype="float32")
    boxes, var = layers.prior_box(
        feat, image, min_sizes=[2.0], max_sizes=[5.0], aspect_ratios=[2.0], flip=True, variance=[0.1, 0.1, 0.2, 0.2]
    )
    assert boxes.shape == var.shape == (4, 5, 4, 4)  # ratios 1, 2, 1/2 and the max-size square
    anchors, avar = layers.anchor_generator(feat, anchor_sizes=[32.0, 64.0], aspect_ratios=[1.0], stride=[8.0, 8.0])
    dense, dvar = layers.density_prior_box(
        feat, image, densities=[2, 1], fixed_sizes=[4.0, 8.0], fixed_ratios=[1.0], flatten_to_2d=True
    )
    assert anchors.shape == (4, 5, 2, 4) and dense.shape == (4 * 5 * 5, 4)
    got = _run(
        progs,
        {"feat": np.zeros((2, 8, 4, 5), "float32"), "image": np.zeros((2, 3, 10, 12), "float32")},
        [boxes, var, anchors, dense, dvar],
    )
    assert got[0].shape == (4, 5, 4, 4) and got[3].shape == (100, 4) and got[4].shape == (100, 4)
    cx, cy = 0.5 * 12 / 5, 0.5 * 10 / 4  # cell (0, 0): step = image / feature map
    np.testing.assert_allclose(got[0][0, 0, 0], [(cx - 1) / 12, (cy - 1) / 10, (cx + 1) / 12, (cy + 1) / 10], rtol=1e-6)
    np.testing.assert_allclose(got[1], np.broadcast_to([0.1, 0.1, 0.2, 0.2], (4, 5, 4, 4)))
    np.testing.assert_allclose(got[2][0, 0], [[-12, -12, 19, 19], [-28, -28, 35, 35]], rtol=1e-6)  # 32, 64 at 3.5


def _nms_program(progs, **kw):
    boxes = layers.data("boxes", [6, 4], dtype="float32")
    scores = layers.data("scores", [3, 6], dtype="float32")
    return layers.multiclass_nms(
        boxes, scores, score_threshold=kw.get("score_threshold", 0.3), nms_top_k=6, keep_top_k=5, nms_threshold=0.45
    )


def test_multiclass_nms_gives_a_lod_over_the_images(progs):
    out = _nms_program(progs)
    assert out.shape == (-1, 6) and out.lod_level == 1
    lo = rng.uniform(0, 0.5, (3, 6, 2))
    boxes = np.concatenate([lo, lo + 0.3], axis=-1).astype("float32")
    scores = rng.uniform(0, 1, (3, 3, 6)).astype("float32")
    scores[1] = 0.0  # image 1: nothing above the threshold
    (got,) = _run(progs, {"boxes": boxes, "scores": scores}, [out], return_numpy=False)
    want = nms_ref(
        {"BBoxes": boxes, "Scores": scores},
        {
            "background_label": 0,
            "score_threshold": 0.3,
            "nms_top_k": 6,
            "keep_top_k": 5,
            "nms_threshold": 0.45,
            "nms_eta": 1.0,
            "normalized": True,
        },
    )["Out"]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    per_image = [
        len(
            nms_ref(
                {"BBoxes": boxes[i : i + 1], "Scores": scores[i : i + 1]},
                {
                    "background_label": 0,
                    "score_threshold": 0.3,
                    "nms_top_k": 6,
                    "keep_top_k": 5,
                    "nms_threshold": 0.45,
                    "nms_eta": 1.0,
                    "normalized": True,
                },
            )["Out"]
        )
        if scores[i].max() > 0.3
        else 0
        for i in range(3)
    ]
    assert per_image[1] == 0 and per_image[0] > 0
    assert got.lod() == [[0, per_image[0], per_image[0], per_image[0] + per_image[2]]]


def test_multiclass_nms_nothing_kept_is_one_row_of_minus_one(progs):
    out = _nms_program(progs, score_threshold=0.99)
    (got,) = _run(
        progs,
        {
            "boxes": rng.uniform(0, 1, (2, 6, 4)).astype("float32"),
            "scores": rng.uniform(0, 0.5, (2, 3, 6)).astype("float32"),
        },
        [out],
        return_numpy=False,
    )
    np.testing.assert_array_equal(np.asarray(got), [[-1.0]])
    assert got.lod() == [[0, 1]]


def test_detection_output_is_decode_softmax_and_nms(progs):
    loc = layers.data("loc", [5, 4], dtype="float32")
    conf = layers.data("conf", [5, 3], dtype="float32")
    prior = layers.data("prior", [5, 4], dtype="float32", append_batch_size=False)
    prior_var = layers.data("prior_var", [5, 4], dtype="float32", append_batch_size=False)
    out = layers.detection_output(
        loc, conf, prior, prior_var, nms_threshold=0.45, nms_top_k=5, keep_top_k=4, score_threshold=0.2
    )
    out2, index = layers.detection_output(loc, conf, prior, prior_var, return_index=True, score_threshold=0.2)
    lo = rng.uniform(0, 0.6, (5, 2))
    feed = {
        "loc": rng.normal(0, 0.5, (2, 5, 4)).astype("float32"),
        "conf": rng.normal(0, 2, (2, 5, 3)).astype("float32"),
        "prior": np.concatenate([lo, lo + 0.3], axis=1).astype("float32"),
        "prior_var": np.full((5, 4), 0.2, "float32"),
    }
    got, got2, got_index = _run(progs, feed, [out, out2, index])
    decoded = coder_ref(
        {"PriorBox": feed["prior"], "PriorBoxVar": feed["prior_var"], "TargetBox": feed["loc"]},
        {"code_type": "decode_center_size", "box_normalized": True, "axis": 0, "variance": []},
    )
    e = np.exp(feed["conf"] - feed["conf"].max(-1, keepdims=True))
    probs = (e / e.sum(-1, keepdims=True)).transpose(0, 2, 1)
    attrs = {
        "background_label": 0,
        "score_threshold": 0.2,
        "nms_top_k": 5,
        "keep_top_k": 4,
        "nms_threshold": 0.45,
        "nms_eta": 1.0,
        "normalized": True,
    }
    want = nms_ref({"BBoxes": decoded["OutputBox"], "Scores": probs}, attrs)["Out"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    want2 = nms_ref(
        {"BBoxes": decoded["OutputBox"], "Scores": probs},
        {**attrs, "nms_top_k": 400, "keep_top_k": 200, "nms_threshold": 0.3},
        with_index=True,
    )
    np.testing.assert_allclose(got2, want2["Out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_index, want2["Index"])


def test_matching_and_assigning_targets(progs):
    gt = layers.data("gt", [4], dtype="float32", lod_level=1)
    prior = layers.data("prior", [6, 4], dtype="float32", append_batch_size=False)
    iou = layers.iou_similarity(gt, prior)
    idx, dist = layers.bipartite_match(iou, match_type="per_prediction", dist_threshold=0.3)
    enc = layers.box_coder(prior, [0.1, 0.1, 0.2, 0.2], gt, code_type="encode_center_size")
    target, weight = layers.target_assign(enc, idx, mismatch_value=0)
    assert iou.lod_level == 1 and idx.shape == (-1, 6) and target.shape == (-1, 6, 4)
    lo = rng.uniform(0, 0.6, (6, 2))
    priors = np.concatenate([lo, lo + 0.3], axis=1).astype("float32")
    gts = priors[[1, 4, 2]] + 0.01  # image 0: 2 boxes, image 1: 1 box
    got_idx, got_t, got_w = _run(progs, {"gt": LoDTensor(gts, [[0, 2, 3]]), "prior": priors}, [idx, target, weight])
    assert got_idx.shape == (2, 6) and got_idx[0, 1] == 0 and got_idx[0, 4] == 1 and got_idx[1, 2] == 0
    np.testing.assert_array_equal(got_w[..., 0], (got_idx > -1).astype(np.float32))
    assert np.all(got_t[got_idx == -1] == 0)


def test_mistakes(progs):
    boxes = layers.data("b", [4], dtype="float32")
    three = layers.data("t", [3], dtype="float32")
    with pytest.raises(PeError, match="Y .* must be boxes"):
        layers.iou_similarity(boxes, three)
    with pytest.raises(PeError, match="prior_box_var must be a Variable or a list"):
        layers.box_coder(boxes, 0.1, boxes)
    deltas = layers.data("d", [7, 4], dtype="float32")
    prior = layers.data("p", [5, 4], dtype="float32", append_batch_size=False)
    # (Fluid 1.8.5 builds it: box_coder compares the boxes' counts when it runs)
    layers.box_coder(prior, [0.1, 0.1, 0.2, 0.2], deltas, code_type="decode_center_size")
    feat = layers.data("f", [2, 4, 4], dtype="float32")
    with pytest.raises(PeError, match="stride"):
        layers.anchor_generator(feat, anchor_sizes=[16.0], aspect_ratios=[1.0], stride=16)
    with pytest.raises(PeError, match="max_sizes .* must exceed"):
        layers.prior_box(feat, feat, min_sizes=[4.0], max_sizes=[2.0])


def test_box_clip_needs_one_im_info_row_per_image(progs):
    box = layers.data("box", [4], dtype="float32", lod_level=1)
    info = layers.data("info", [3], dtype="float32")
    out = layers.box_clip(box, info)
    with pytest.raises(PeError, match="LoD holds 2 images but ImInfo has 3 rows"):
        _run(
            progs,
            {"box": LoDTensor(np.ones((3, 4), "float32"), [[0, 1, 3]]), "info": np.ones((3, 3), "float32")},
            [out],
        )


def test_yolo_box_focal_loss_polygon_and_decode_assign_layers(progs):
    x = layers.data("x", [14, 3, 4], dtype="float32")  # 2 anchors, 2 classes
    size = layers.data("size", [2], dtype="int32")
    boxes, scores = layers.yolo_box(
        x, size, anchors=[10, 13, 16, 30], class_num=2, conf_thresh=0.01, downsample_ratio=8
    )
    assert boxes.shape == (-1, 24, 4) and scores.shape == (-1, 24, 2)
    logits = layers.data("logits", [3], dtype="float32")
    label = layers.data("label", [1], dtype="int32")
    fg = layers.data("fg", [1], dtype="int32", append_batch_size=False)
    logits.stop_gradient = False
    loss = layers.reduce_sum(layers.sigmoid_focal_loss(logits, label, fg))
    (grad,) = fluid.backward.gradients([loss], [logits])
    geo = layers.polygon_box_transform(layers.data("geo", [4, 2, 3], dtype="float32"))
    prior = layers.data("prior", [4], dtype="float32")
    pvar = layers.data("pvar", [4], dtype="float32", append_batch_size=False)
    decoded, assigned = layers.box_decoder_and_assign(
        prior,
        pvar,
        layers.data("deltas", [12], dtype="float32"),
        layers.data("score", [3], dtype="float32"),
        box_clip=4.135,
    )
    assert geo.shape == (-1, 4, 2, 3) and decoded.shape == (-1, 12) and assigned.shape == (-1, 4)
    feed = {
        "x": rng.normal(size=(2, 14, 3, 4)).astype("float32"),
        "size": np.array([[30, 40], [20, 20]], "int32"),
        "logits": rng.normal(size=(4, 3)).astype("float32"),
        "label": np.array([[1], [0], [3], [-1]], "int32"),
        "fg": np.array([2], "int32"),
        "geo": np.zeros((1, 4, 2, 3), "float32"),
        "prior": np.array([[0, 0, 9, 9]], "float32"),
        "pvar": np.array([0.1, 0.1, 0.2, 0.2], "float32"),
        "deltas": np.zeros((1, 12), "float32"),
        "score": np.array([[0.9, 0.05, 0.05]], "float32"),
    }
    b, s, g, gm, d, a = _run(progs, feed, [boxes, scores, grad, geo, decoded, assigned])
    assert b.shape == (2, 24, 4) and s.shape == (2, 24, 2) and np.all(s <= 1)
    assert g.shape == (4, 3) and np.all(g[3] == 0) and np.any(g[:3] != 0)  # label -1: no gradient
    np.testing.assert_array_equal(gm[0, 0], 4 * np.arange(3)[None, :].repeat(2, 0))
    np.testing.assert_allclose(d, [[0, 0, 9, 9] * 3])  # zero deltas: the prior itself
    np.testing.assert_allclose(a, [[0, 0, 9, 9]])


def test_matrix_nms_layer_gives_index_and_a_lod(progs):
    boxes = layers.data("boxes", [6, 4], dtype="float32")
    scores = layers.data("scores", [3, 6], dtype="float32")
    out, index = layers.matrix_nms(
        boxes, scores, score_threshold=0.2, post_threshold=0.1, nms_top_k=4, keep_top_k=5, return_index=True
    )
    lo = rng.uniform(0, 0.5, (2, 6, 2))
    feed = {
        "boxes": np.concatenate([lo, lo + 0.3], axis=-1).astype("float32"),
        "scores": rng.uniform(0, 1, (2, 3, 6)).astype("float32"),
    }
    got, got_index = _run(progs, feed, [out, index], return_numpy=False)
    want = matrix_ref(
        {"BBoxes": feed["boxes"], "Scores": feed["scores"]},
        {
            "background_label": 0,
            "score_threshold": 0.2,
            "post_threshold": 0.1,
            "nms_top_k": 4,
            "keep_top_k": 5,
            "normalized": True,
            "use_gaussian": False,
            "gaussian_sigma": 2.0,
        },
    )
    np.testing.assert_allclose(np.asarray(got), want["Out"], rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(got_index), want["Index"])
    counts = want["RoisNum"].tolist()
    assert got.lod() == got_index.lod() == [[0, counts[0], counts[0] + counts[1]]] and counts[0] > 0


def test_locality_aware_nms_layer_lod(progs):
    boxes = layers.data("boxes", [5, 4], dtype="float32")
    scores = layers.data("scores", [1, 5], dtype="float32")
    out = layers.locality_aware_nms(boxes, scores, score_threshold=0.5, nms_top_k=-1, keep_top_k=-1)
    base = np.array([0.1, 0.1, 0.5, 0.5], "float32")
    feed = {
        "boxes": np.stack([base + 0.01 * k for k in range(5)])[None].repeat(2, 0),  # one chain per image
        "scores": np.array([[[0.2, 0.2, 0.2, 0.2, 0.2]], [[0.05, 0.05, 0.05, 0.05, 0.05]]], "float32"),
    }
    (got,) = _run(progs, feed, [out], return_numpy=False)
    assert got.lod() == [[0, 1, 1]]  # image 0: the 5 boxes merge into one, score 1.0
    np.testing.assert_allclose(np.asarray(got)[0, :2], [0, 1.0], rtol=1e-6)


def test_polygon_iou_of_a_square_and_its_45_degree_turn():
    """Fluid's PolyIoU of quadrilaterals (locality_aware_nms's [N, M, 8] boxes): a unit square and the same
    square turned 45 degrees about its centre meet in a regular octagon of area 2 (sqrt 2 - 1), either
    orientation; squares apart: 0."""
    from pe_cli.kernels.cpu._detection_loops import poly_iou

    r = np.sqrt(0.5)
    turned = [0.5 + r * f(k * np.pi / 2) for k in range(4) for f in (np.cos, np.sin)]
    octagon = 2 * (np.sqrt(2) - 1)
    for square in ([0, 0, 1, 0, 1, 1, 0, 1], [0, 0, 0, 1, 1, 1, 1, 0]):
        b = np.array([square, turned, [5, 5, 6, 5, 6, 6, 5, 6]], np.float64)
        np.testing.assert_allclose([poly_iou(b, 0, 1), poly_iou(b, 1, 0)], octagon / (2 - octagon), rtol=1e-12)
        assert poly_iou(b, 0, 2) == 0.0 and poly_iou(b, 0, 0) == pytest.approx(1.0)
