"""The proposal layers as Fluid 1.8 users call them: generate_proposals' rois and probabilities with
a LoD sequence per image, and an FPN head's round trip: distribute_fpn_proposals' levels (each with
its own LoD) pooled by roi_align, concatenated and put back in order by the restore index equal
roi_align over the rois at once; collect_fpn_proposals' LoD (values: the op cases in
tests/ops/cases_detection_proposals.py)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from tests.ops.cases_detection_proposals import _GP, _proposal_inputs, _proposals_ref

layers = fluid.layers
rng = np.random.default_rng(8)


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def _run(prog, feed, fetch, return_numpy=True):
    return fluid.Executor(fluid.CPUPlace()).run(
        prog, feed=feed, fetch_list=fetch, scope=fluid.Scope(), return_numpy=return_numpy
    )


def test_generate_proposals_one_sequence_per_image(prog):
    ins = _proposal_inputs(2, [16, 32, 64], 4, 5, [[64, 80, 1.0], [60, 70, 2.0]])
    # Fluid 1.8's layer takes float32 scores, deltas, anchors and variances (ImInfo float64 too)
    ins = {k: v if k == "ImInfo" else v.astype(np.float32) for k, v in ins.items()}
    feeds = {k: fluid.data(k, list(v.shape), str(v.dtype)) for k, v in ins.items()}
    rois, probs, num = layers.generate_proposals(
        feeds["Scores"],
        feeds["BboxDeltas"],
        feeds["ImInfo"],
        feeds["Anchors"],
        feeds["Variances"],
        pre_nms_top_n=30,
        post_nms_top_n=10,
        nms_thresh=0.5,
        min_size=3.0,
        return_rois_num=True,
    )
    assert rois.shape == (-1, 4) and probs.shape == (-1, 1) and rois.lod_level == 1
    got_rois, got_probs, got_num = _run(prog, ins, [rois, probs, num], return_numpy=False)
    want = _proposals_ref(ins, _GP)
    np.testing.assert_allclose(np.asarray(got_rois), want["RpnRois"], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(got_probs), want["RpnRoiProbs"], rtol=1e-5)
    counts = want["RpnRoisNum"].tolist()
    assert got_rois.lod() == [[0, counts[0], sum(counts)]] == got_probs.lod()
    assert np.asarray(got_num).tolist() == counts


def test_fpn_levels_pooled_and_restored_equal_pooling_at_once(prog):
    x = fluid.data("x", [None, 3, 40, 40], "float32")
    rois = fluid.data("rois", [None, 4], "float32", lod_level=1)
    levels, restore = layers.distribute_fpn_proposals(rois, min_level=2, max_level=5, refer_level=4, refer_scale=64)
    assert len(levels) == 4 and all(v.lod_level == 1 for v in levels)
    pooled = [layers.roi_align(x, level, 2, 2, 0.25, sampling_ratio=2) for level in levels]
    restored = layers.gather(layers.concat(pooled, axis=0), restore)
    direct = layers.roi_align(x, rois, 2, 2, 0.25, sampling_ratio=2)
    xy = rng.uniform(0, 100, (7, 2))
    boxes = np.c_[xy, xy + rng.uniform(2, 150, (7, 2))].astype(np.float32)
    feed = {
        "x": rng.normal(size=(2, 3, 40, 40)).astype(np.float32),
        "rois": fluid.create_lod_tensor(boxes, [[3, 4]], fluid.CPUPlace()),
    }
    got, want, *per_level = _run(prog, feed, [restored, direct] + levels, return_numpy=False)
    assert sum(np.asarray(v).shape[0] for v in per_level) == 7
    assert sum(1 for v in per_level if np.asarray(v).shape[0]) >= 2, "the boxes should spread over levels"
    assert all(v.lod()[0][-1] == np.asarray(v).shape[0] and len(v.lod()[0]) == 3 for v in per_level)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_collect_fpn_proposals_groups_by_image(prog):
    rois = [fluid.data(f"r{k}", [None, 4], "float32", lod_level=1) for k in range(3)]
    scores = [fluid.data(f"s{k}", [None, 1], "float32", lod_level=1) for k in range(3)]
    out = layers.collect_fpn_proposals(rois, scores, min_level=2, max_level=3, post_nms_top_n=4)
    feed = {}
    for k, (a, b) in enumerate(((1, 2), (2, 1), (3, 3))):
        feed[f"r{k}"] = fluid.create_lod_tensor(np.full((a + b, 4), k, np.float32), [[a, b]], fluid.CPUPlace())
        feed[f"s{k}"] = fluid.create_lod_tensor(
            np.linspace(0.1 + k, 0.2 + k, a + b, dtype=np.float32)[:, None], [[a, b]], fluid.CPUPlace()
        )
    (got,) = _run(prog, feed, [out], return_numpy=False)
    # levels 2 and 3 only (max_level - min_level + 1 = 2): the 4 best are level 1's three (image 0's two,
    # image 1's one) and level 0's last (image 1's); by image, each in score order
    assert got.lod() == [[0, 2, 4]]
    np.testing.assert_array_equal(np.asarray(got)[:, 0], [1, 1, 1, 0])


def test_mistakes(prog):
    rois = fluid.data("rois", [None, 4], "float32", lod_level=1)
    with pytest.raises(PeError, match="max_level=2 is below min_level=3"):
        layers.distribute_fpn_proposals(rois, 3, 2, 4, 224)
    with pytest.raises(PeError, match=r"MultiLevelRois \(2\) and MultiLevelScores \(1\) must list the same levels"):
        layers.collect_fpn_proposals([rois, rois], [rois], 2, 3, 10)


def test_retinanet_detection_output_one_sequence_per_image(prog):
    from tests.ops.cases_detection_nms import RETINANET_CASES as CASES, retinanet_ref as _ref

    case = CASES[0]
    names = {}
    for slot in ("BBoxes", "Scores", "Anchors"):
        names[slot] = [fluid.data(f"{slot}{k}", list(v.shape), "float64") for k, v in enumerate(case.inputs[slot])]
    info = fluid.data("info", [None, 3], "float64")
    out = layers.retinanet_detection_output(
        names["BBoxes"], names["Scores"], names["Anchors"], info, **{k: v for k, v in case.attrs.items()}
    )
    assert out.shape == (-1, 6) and out.lod_level == 1
    feed = {f"{slot}{k}": v for slot in names for k, v in enumerate(case.inputs[slot])}
    feed["info"] = case.inputs["ImInfo"]
    (got,) = _run(prog, feed, [out], return_numpy=False)
    np.testing.assert_allclose(np.asarray(got), _ref(case.inputs, case.attrs)["Out"], rtol=1e-9)
    assert got.lod() == [[0, 12, 24]]


def test_rpn_target_assign_feeds_an_rpn_loss_that_trains(prog):
    from tests.ops.cases_detection_target import _inputs

    ins = _inputs()
    feat = fluid.data("feat", [None, 4, 8, 8], "float32")
    anchors = fluid.data("anchors", [128, 4], "float32")
    variances = fluid.data("variances", [128, 4], "float32")  # Fluid 1.8's layer needs it (its op reads none)
    gt = fluid.data("gt", [None, 4], "float32", lod_level=1)
    crowd = fluid.data("crowd", [None, 1], "int32", lod_level=1)
    info = fluid.data("info", [None, 3], "float32")
    logits = layers.conv2d(feat, 2, 1)  # 2 anchors per cell, like _anchors: [N, 2, 8, 8]
    deltas = layers.conv2d(feat, 8, 1)
    logits = layers.transpose(logits, [0, 2, 3, 1])  # anchor order: cell, then size
    deltas = layers.transpose(deltas, [0, 2, 3, 1])
    scores, boxes, label, target, weight = layers.rpn_target_assign(
        deltas,
        logits,
        anchors,
        variances,
        gt,
        crowd,
        info,
        rpn_batch_size_per_im=20,
        rpn_fg_fraction=0.25,
        rpn_positive_overlap=0.5,
        use_random=False,
    )
    cls_loss = layers.reduce_mean(layers.sigmoid_cross_entropy_with_logits(scores, layers.cast(label, "float32")))
    box_loss = layers.reduce_mean(layers.abs(boxes - target) * weight)
    loss = cls_loss + box_loss
    fluid.optimizer.SGD(0.5).minimize(loss)
    fluid.default_startup_program().random_seed = 3
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(fluid.default_startup_program(), scope=scope)
    place = fluid.CPUPlace()
    feed = {
        "feat": rng.normal(size=(2, 4, 8, 8)).astype(np.float32),
        "anchors": ins["Anchor"].astype(np.float32),
        "gt": fluid.create_lod_tensor(np.asarray(ins["GtBoxes"], np.float32), [[4, 2]], place),
        "crowd": fluid.create_lod_tensor(np.asarray(ins["IsCrowd"]), [[4, 2]], place),
        "info": ins["ImInfo"].astype(np.float32),
    }
    first = None
    for _ in range(15):
        got_label, value = exe.run(prog, feed=feed, fetch_list=[label, loss], scope=scope)
        first = float(value) if first is None else first
    assert got_label.shape[0] <= 40 and got_label.shape[1] == 1 and 2 <= got_label.sum() <= 10
    assert float(value) < 0.7 * first, (first, float(value))


def test_retinanet_target_assign_labels_by_class(prog):
    from tests.ops.cases_detection_target import _inputs, _retina_ref

    ins = _inputs()
    labels = np.array([[3], [1], [2], [4], [2], [5]], np.int32)
    anchors = fluid.data("anchors", [128, 4], "float64")
    variances = fluid.data("variances", [128, 4], "float64")  # Fluid 1.8's layer needs it (its op reads none)
    gt = fluid.data("gt", [None, 4], "float64", lod_level=1)
    gl = fluid.data("gl", [None, 1], "int32", lod_level=1)
    crowd = fluid.data("crowd", [None, 1], "int32", lod_level=1)
    info = fluid.data("info", [None, 3], "float64")
    cls = fluid.data("cls", [None, 128, 5], "float64")
    box = fluid.data("box", [None, 128, 4], "float64")
    scores, boxes, label, target, weight, fg_num = layers.retinanet_target_assign(
        box, cls, anchors, variances, gt, gl, crowd, info, num_classes=5
    )
    place = fluid.CPUPlace()
    feed = {
        "anchors": ins["Anchor"],
        "gt": fluid.create_lod_tensor(np.asarray(ins["GtBoxes"]), [[4, 2]], place),
        "gl": fluid.create_lod_tensor(labels, [[4, 2]], place),
        "crowd": fluid.create_lod_tensor(np.asarray(ins["IsCrowd"]), [[4, 2]], place),
        "info": ins["ImInfo"],
        "cls": rng.normal(size=(2, 128, 5)),
        "box": rng.normal(size=(2, 128, 4)),
    }
    got = _run(prog, feed, [scores, boxes, label, target, weight, fg_num])
    want = _retina_ref(
        dict(ins, GtLabels=fluid.LoDTensor(labels, [[0, 4, 6]])), {"positive_overlap": 0.5, "negative_overlap": 0.4}
    )
    np.testing.assert_array_equal(got[2], want["TargetLabel"])
    np.testing.assert_array_equal(got[5], want["ForegroundNumber"])
    np.testing.assert_allclose(got[3], want["TargetBBox"], rtol=1e-9)
    assert got[0].shape == (want["TargetLabel"].shape[0], 5) and got[1].shape == want["TargetBBox"].shape
    np.testing.assert_array_equal(got[0], feed["cls"].reshape(-1, 5)[want["ScoreIndex"]])


def test_generate_proposal_labels_per_image(prog):
    from tests.ops.cases_detection_target import _LABEL_ATTRS, _label_inputs, _labels_ref

    ins = _label_inputs()
    place = fluid.CPUPlace()
    rois = fluid.data("rois", [None, 4], "float64", lod_level=1)
    classes = fluid.data("classes", [None, 1], "int32", lod_level=1)
    crowd = fluid.data("crowd", [None, 1], "int32", lod_level=1)
    gt = fluid.data("gt", [None, 4], "float64", lod_level=1)
    info = fluid.data("info", [None, 3], "float64")
    outs = layers.generate_proposal_labels(
        rois,
        classes,
        crowd,
        gt,
        info,
        batch_size_per_im=8,
        fg_fraction=0.5,
        fg_thresh=0.5,
        class_nums=5,
        use_random=False,
        return_max_overlap=True,
    )
    assert len(outs) == 6 and outs[2].shape == (-1, 20)
    feed = {
        name: fluid.create_lod_tensor(np.asarray(ins[slot]), [np.diff(ins[slot].lod()[0]).tolist()], place)
        for name, slot in (("rois", "RpnRois"), ("classes", "GtClasses"), ("crowd", "IsCrowd"), ("gt", "GtBoxes"))
    }
    feed["info"] = ins["ImInfo"]
    got = _run(prog, feed, list(outs), return_numpy=False)
    want = _labels_ref(ins, _LABEL_ATTRS)
    for g, slot in zip(
        got, ("Rois", "LabelsInt32", "BboxTargets", "BboxInsideWeights", "BboxOutsideWeights", "MaxOverlapWithGT")
    ):
        np.testing.assert_allclose(np.asarray(g), want[slot], rtol=1e-9, err_msg=slot)
        assert g.lod() == [[0, 8, 16]]
    with pytest.raises(PeError, match="class_nums is needed"):
        layers.generate_proposal_labels(rois, classes, crowd, gt, info)


def test_generate_mask_labels_three_level_segms(prog):
    from tests.ops.cases_detection_target import MASK_CASES, mask_ref as _ref

    case = MASK_CASES[0]
    place = fluid.CPUPlace()
    info = fluid.data("info", [None, 3], "float32")
    classes = fluid.data("classes", [None, 1], "int32", lod_level=1)
    crowd = fluid.data("crowd", [None, 1], "int32", lod_level=1)
    segms = fluid.data("segms", [None, 2], "float32", lod_level=3)
    rois = fluid.data("rois", [None, 4], "float32", lod_level=1)
    labels = fluid.data("labels", [None, 1], "int32", lod_level=1)
    outs = layers.generate_mask_labels(info, classes, crowd, segms, rois, labels, num_classes=3, resolution=8)
    assert outs[2].shape == (-1, 192)
    feed = {"info": case.inputs["ImInfo"]}
    for name, slot in (
        ("classes", "GtClasses"),
        ("crowd", "IsCrowd"),
        ("segms", "GtSegms"),
        ("rois", "Rois"),
        ("labels", "LabelsInt32"),
    ):
        value = case.inputs[slot]
        feed[name] = fluid.create_lod_tensor(np.asarray(value), [np.diff(lv).tolist() for lv in value.lod()], place)
    got = _run(prog, feed, list(outs), return_numpy=False)
    want = _ref(case.inputs, case.attrs)
    for g, slot in zip(got, ("MaskRois", "RoiHasMaskInt32", "MaskInt32")):
        np.testing.assert_array_equal(np.asarray(g), want[slot], err_msg=slot)
        assert g.lod() == [[0, 3, 4]]
