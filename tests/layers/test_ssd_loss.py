"""fluid.layers.ssd_loss against a numpy SSD loss built from the op cases' references (matching,
mining, target assignment, box encoding) and Fluid's formulas, and its gradients for the location
and confidence predictions against their closed forms."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.framework.lod_tensor import LoDTensor
from tests.ops.cases_detection_box import coder_ref, iou_ref
from tests.ops.cases_detection_match import assign_ref, match_ref, mine_ref

layers = fluid.layers
N, NP, C = 2, 12, 5
LOD = [0, 2, 3]


def _feed():
    rng = np.random.default_rng(9)
    lo = rng.uniform(0, 0.6, (NP, 2))
    prior = np.concatenate([lo, lo + rng.uniform(0.2, 0.4, (NP, 2))], axis=1).astype("float32")
    return {
        "prior": prior,
        "prior_var": np.full((NP, 4), 0.2, "float32"),
        "loc": rng.normal(0, 1, (N, NP, 4)).astype("float32"),
        "conf": rng.normal(0, 1, (N, NP, C)).astype("float32"),
        "gt_box": LoDTensor(prior[[2, 7, 4]] + 0.03, [LOD]),
        "gt_label": LoDTensor(np.array([[3], [1], [4]], "int32"), [LOD]),
    }


def _reference(f, neg_pos_ratio=3.0):
    gt, label3 = np.asarray(f["gt_box"]), np.asarray(f["gt_label"]).reshape(-1, 1, 1)
    iou = iou_ref({"X": gt, "Y": f["prior"]}, {"box_normalized": True})["Out"]
    m = match_ref({"DistMat": LoDTensor(iou, [LOD])}, {"match_type": "per_prediction", "dist_threshold": 0.5})
    idx, dist = m["ColToRowMatchIndices"], m["ColToRowMatchDist"]
    conf = f["conf"].reshape(-1, C).astype(np.float64)
    lse = np.log(np.exp(conf).sum(1))
    first = assign_ref({"X": LoDTensor(label3, [LOD]), "MatchIndices": idx}, {"mismatch_value": 0})["Out"].reshape(-1)
    cls_loss = (lse - conf[np.arange(len(conf)), first]).reshape(N, NP)
    mine_attrs = {"mining_type": "max_negative", "neg_pos_ratio": neg_pos_ratio, "neg_dist_threshold": 0.5}
    negs = [
        mine_ref(
            {"ClsLoss": cls_loss[n : n + 1], "MatchIndices": idx[n : n + 1], "MatchDist": dist[n : n + 1]}, mine_attrs
        )["NegIndices"]
        for n in range(N)
    ]
    neg = LoDTensor(np.concatenate(negs), [[0, len(negs[0]), len(negs[0]) + len(negs[1])]])
    enc = coder_ref(
        {"PriorBox": f["prior"], "PriorBoxVar": f["prior_var"], "TargetBox": gt},
        {"code_type": "encode_center_size", "box_normalized": True, "variance": []},
    )["OutputBox"]
    tb = assign_ref({"X": LoDTensor(enc, [LOD]), "MatchIndices": idx}, {"mismatch_value": 0})
    tl = assign_ref({"X": LoDTensor(label3, [LOD]), "MatchIndices": idx, "NegIndices": neg}, {"mismatch_value": 0})
    labels, cw = tl["Out"].reshape(-1), tl["OutWeight"].reshape(-1)
    lw = tb["OutWeight"].reshape(-1)
    diff = f["loc"].reshape(-1, 4) - tb["Out"].reshape(-1, 4)
    smooth = np.where(np.abs(diff) < 1, 0.5 * diff * diff, np.abs(diff) - 0.5).sum(1)
    per_prior = (lse - conf[np.arange(len(conf)), labels]) * cw + smooth * lw
    loss = per_prior.reshape(N, NP).sum(1, keepdims=True) / lw.sum()
    soft = np.exp(conf - lse[:, None])
    soft[np.arange(len(conf)), labels] -= 1
    d_conf = (soft * (cw / lw.sum())[:, None]).reshape(N, NP, C)
    d_loc = (np.clip(diff, -1, 1) * (lw / lw.sum())[:, None]).reshape(N, NP, 4)
    return loss, d_loc, d_conf, lw.sum(), cw.sum()


def test_ssd_loss_equals_the_numpy_composition_with_its_gradients():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        prior = layers.data("prior", [NP, 4], dtype="float32", append_batch_size=False)
        prior_var = layers.data("prior_var", [NP, 4], dtype="float32", append_batch_size=False)
        loc = layers.data("loc", [NP, 4], dtype="float32", stop_gradient=False)
        conf = layers.data("conf", [NP, C], dtype="float32", stop_gradient=False)
        gt_box = layers.data("gt_box", [4], dtype="float32", lod_level=1)
        gt_label = layers.data("gt_label", [1], dtype="int32", lod_level=1)
        loss = layers.ssd_loss(loc, conf, gt_box, gt_label, prior, prior_var)
        assert loss.shape == (-1, 1)
        grads = fluid.backward.gradients([layers.reduce_sum(loss)], [loc, conf])
    f = _feed()
    got, g_loc, g_conf = fluid.Executor(fluid.CPUPlace()).run(
        main, feed=f, fetch_list=[loss] + grads, scope=fluid.Scope()
    )
    want, d_loc, d_conf, positives, weighted = _reference(f)
    assert positives >= 3 and weighted > positives  # matches and mined negatives both take part
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(g_loc, d_loc, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(g_conf, d_conf, rtol=1e-4, atol=1e-6)


def test_ssd_loss_mistakes():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        prior = layers.data("prior", [NP, 4], dtype="float32", append_batch_size=False)
        loc = layers.data("loc", [NP, 4], dtype="float32")
        conf = layers.data("conf", [NP, C], dtype="float32")
        gt_box = layers.data("gt_box", [4], dtype="float32", lod_level=1)
        gt_label = layers.data("gt_label", [1], dtype="int32", lod_level=1)
        with pytest.raises(ValueError, match="only 'max_negative'"):
            layers.ssd_loss(loc, conf, gt_box, gt_label, prior, [0.1, 0.1, 0.2, 0.2], mining_type="hard_example")
        with pytest.raises(PeError, match="float32, float64"):
            layers.ssd_loss(layers.cast(loc, "int32"), conf, gt_box, gt_label, prior, [0.1, 0.1, 0.2, 0.2])
