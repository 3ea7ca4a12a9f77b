"""fluid.metrics: each accumulator against the formula Fluid 1.8's documentation gives, computed
here in plain Python over the same batches."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

RNG = np.random.default_rng(3)


def test_precision_and_recall_over_batches():
    p, r = fluid.metrics.Precision(), fluid.metrics.Recall()
    tp = fp = fn = 0
    for _ in range(3):
        preds = RNG.uniform(size=(10, 1))
        labels = RNG.integers(0, 2, size=(10, 1))
        p.update(preds, labels)
        r.update(preds, labels)
        for pr, lb in zip(np.rint(preds).ravel(), labels.ravel()):
            tp += pr == 1 and lb == 1
            fp += pr == 1 and lb != 1
            fn += pr != 1 and lb == 1
    assert p.eval() == pytest.approx(tp / (tp + fp))
    assert r.eval() == pytest.approx(tp / (tp + fn))
    p.reset()
    assert (p.tp, p.fp, p.eval()) == (0, 0, 0.0)
    with pytest.raises(ValueError, match="numpy array"):
        p.update([1, 0], np.array([1, 0]))


def test_accuracy_is_the_weighted_mean_and_refuses_no_data():
    acc = fluid.metrics.Accuracy()
    with pytest.raises(ValueError, match="no data"):
        acc.eval()
    acc.update(np.array([0.5], dtype="float32"), 10)
    acc.update(0.8, 30)
    assert acc.eval() == pytest.approx((0.5 * 10 + 0.8 * 30) / 40)
    assert acc.get_config() == {"name": "Accuracy", "states": {"value": pytest.approx(29.0), "weight": 40.0}}


def test_edit_distance():
    ed = fluid.metrics.EditDistance("ed")
    ed.update(np.array([[0.0], [2.0], [1.0]]), 3)
    ed.update(np.array([[0.0]]), np.int64(1))
    assert ed.eval() == pytest.approx((3.0 / 4, 2.0 / 4))


def test_chunk_evaluator_sums_counts_over_batches():
    ce = fluid.metrics.ChunkEvaluator()
    assert ce.eval() == (0.0, 0.0, 0.0)
    ce.update(np.array([4], dtype="int64"), np.array([5], dtype="int64"), np.array([3], dtype="int64"))
    ce.update(6, 5, 4)
    p, r = 7 / 10, 7 / 10
    assert ce.eval() == pytest.approx((p, r, 2 * p * r / (p + r)))
    ce.reset()
    assert (ce.num_infer_chunks, ce.num_label_chunks, ce.num_correct_chunks) == (0, 0, 0)
    with pytest.raises(ValueError, match="num_label_chunks"):
        ce.update(1, "2", 1)


def test_auc_matches_the_pairwise_definition():
    auc = fluid.metrics.Auc("auc", num_thresholds=1000)
    scores, labels = [], []
    for _ in range(2):
        s = RNG.uniform(size=64)
        lb = (RNG.uniform(size=64) < s).astype("int64")
        auc.update(np.stack([1 - s, s], axis=1), lb.reshape(-1, 1))
        scores.append(s)
        labels.append(lb)
    s, lb = np.concatenate(scores), np.concatenate(labels)
    b = np.floor(s * 1000)  # Fluid's buckets: ties within a bucket count one half
    pos, neg = b[lb == 1], b[lb == 0]
    want = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    assert auc.eval() == pytest.approx(want, rel=1e-12)
    # Fluid's bucket counts are Python lists (test_auc_op.py extends them: `_stat_pos * 2` then append)
    assert isinstance(auc._stat_pos, list) and len(auc._stat_pos) == 1001
    assert sum(auc._stat_pos) == lb.sum() and sum(auc._stat_neg) == len(lb) - lb.sum()


def test_composite_metric_and_detection_map_arguments():
    comp = fluid.metrics.CompositeMetric()
    comp.add_metric(fluid.metrics.Precision())
    comp.add_metric(fluid.metrics.Recall())
    comp.update(np.array([[1.0], [1.0], [0.0]]), np.array([[1], [0], [1]]))
    assert comp.eval() == [0.5, 0.5]
    with pytest.raises(ValueError, match="MetricBase"):
        comp.add_metric("precision")
    # DetectionMAP is built into a program (test_fluid_oracle.py)
    with pytest.raises(
        TypeError,
        match=r"DetectionMAP\.__init__\(\) missing 3 required positional arguments: 'input', 'gt_label', and 'gt_box'",
    ):
        fluid.metrics.DetectionMAP()
