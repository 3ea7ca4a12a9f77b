"""paddle.metric and paddle.regularizer (Paddle 2.x): Accuracy (numpy and, on Variables, the ops
of a static program), Precision, Recall and Auc against numpy references; the regularizers'
2.x argument name."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import PeError

RNG = np.random.RandomState(7)
PRED = RNG.rand(40, 5).astype("float32")
LABEL = RNG.randint(0, 5, (40, 1)).astype("int64")


def topk_reference(k):
    best = np.argsort(-PRED, axis=1)[:, :k]
    return (best == LABEL).any(axis=1).mean()


def test_accuracy_in_numpy_and_as_ops():
    m = paddle.metric.Accuracy(topk=(1, 3))
    assert m.name() == ["acc_top1", "acc_top3"]
    correct = m.compute(PRED, LABEL)
    assert m.update(correct) == pytest.approx([topk_reference(1), topk_reference(3)])
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 5])
        y = paddle.static.data("y", [None, 1], "int64")
        ops = m.compute(x, y)
        acc = paddle.metric.accuracy(x, y, k=3)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(start)
    fetched, acc3 = exe.run(main, feed={"x": PRED, "y": LABEL}, fetch_list=[ops, acc])
    np.testing.assert_array_equal(fetched, correct)
    assert float(acc3) == pytest.approx(topk_reference(3))
    m.update(fetched)
    assert m.accumulate() == pytest.approx([topk_reference(1), topk_reference(3)])
    m.reset()
    assert m.accumulate() == [0.0, 0.0]
    one_hot = np.eye(5, dtype="float32")[LABEL[:, 0]]
    np.testing.assert_array_equal(paddle.metric.Accuracy().compute(PRED, one_hot), correct[:, :1])


def test_precision_and_recall():
    preds = np.array([0.9, 0.2, 0.7, 0.4, 0.6, 0.1], "float32")
    labels = np.array([1, 0, 0, 1, 1, 1])
    p, r = paddle.metric.Precision(), paddle.metric.Recall()
    p.update(preds, labels)
    r.update(preds, labels)
    assert p.accumulate() == pytest.approx(2 / 3) and r.accumulate() == pytest.approx(2 / 4)
    assert (p.name(), r.name()) == ("precision", "recall")
    p.reset()
    assert p.accumulate() == 0.0


def test_auc_equals_the_rank_statistic():
    scores = RNG.rand(200)
    labels = (RNG.rand(200) < scores).astype("int64")
    auc = paddle.metric.Auc(num_thresholds=100000)
    auc.update(np.stack([1 - scores, scores], axis=1), labels)
    pos, neg = scores[labels == 1], scores[labels == 0]
    reference = (pos[:, None] > neg[None, :]).mean()
    assert auc.accumulate() == pytest.approx(reference, abs=1e-3)
    coarse = paddle.metric.Auc(num_thresholds=4)  # ties inside a bin count half
    coarse.update(np.array([[0.1, 0.9], [0.2, 0.8], [0.4, 0.6]]), np.array([0, 1, 0]))  # bins 3, 3, 2
    assert coarse.accumulate() == pytest.approx(0.75)


def test_regularizers_take_coeff():
    assert paddle.regularizer.L2Decay(coeff=0.1)._regularization_coeff == 0.1
    assert paddle.regularizer.L1Decay(0.2)._regularization_coeff == 0.2


def test_static_metric_layers():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 5])
        y = paddle.static.data("y", [None, 1], "int64")
        acc = paddle.static.accuracy(x, y, k=1)
        prob = paddle.static.data("p", [None, 2])
        auc_out = paddle.static.auc(prob, y, num_thresholds=4095)[0]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(start)
    binary = (LABEL % 2).astype("int64")
    probs = np.stack([1 - PRED[:, 0], PRED[:, 0]], axis=1)
    a, u = exe.run(main, feed={"x": PRED, "y": binary, "p": probs}, fetch_list=[acc, auc_out])
    reference = paddle.metric.Auc()
    reference.update(probs, binary)
    assert float(u) == pytest.approx(reference.accumulate(), abs=1e-6)
    assert float(a) == pytest.approx((np.argmax(PRED, 1) == binary[:, 0]).mean())
    with pytest.raises(PeError, match="ins_tag_weight"):
        paddle.static.auc(prob, y, ins_tag_weight=prob)
