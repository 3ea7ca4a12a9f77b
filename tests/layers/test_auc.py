"""fluid.layers.auc (pe_cli/layers/metric.py, the auc op): trained batch by batch, the global AUC
equals fluid.metrics.Auc (the numpy metric) over every batch seen, the sliding one the AUC of the last
slide_steps batches, and the counters are persistable (zeroed by the startup program)."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError


def _metric(preds, labels, n):
    m = fluid.metrics.Auc("auc", num_thresholds=n)
    for p, y in zip(preds, labels):
        m.update(p, y)
    return m.eval()


def test_global_and_sliding_auc_over_batches():
    n = 255
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        prob = fluid.data("prob", [None, 2])
        label = fluid.data("label", [None, 1], dtype="int64")
        global_auc, batch_auc, stats = fluid.layers.auc(prob, label, num_thresholds=n, slide_steps=2)
    assert all(v.persistable for v in stats) and [v.shape for v in stats][2] == (1, n + 1)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(0)
    preds, labels = [], []
    for _ in range(4):
        y = rng.integers(0, 2, (50, 1))
        p = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.25, (50, 1)), 0, 1).astype("float32")
        preds.append(np.hstack([1 - p, p]))
        labels.append(y)
        got_global, got_batch = exe.run(main, feed={"prob": preds[-1], "label": y}, fetch_list=[global_auc, batch_auc])
        assert got_global.dtype == np.float64
        np.testing.assert_allclose(got_global[0], _metric(preds, labels, n), rtol=1e-12)
        np.testing.assert_allclose(got_batch[0], _metric(preds[-2:], labels[-2:], n), rtol=1e-12)
    assert 0.7 < got_global[0] < 1.0  # the scores do separate the classes


def test_probabilities_outside_0_1_are_named():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        prob = fluid.data("prob", [None, 2])
        label = fluid.data("label", [None, 1], dtype="int64")
        out, _, _ = fluid.layers.auc(prob, label)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    with pytest.raises(PeError, match=r"auc: Predict's probabilities must lie in \[0, 1\]"):
        exe.run(main, feed={"prob": np.array([[0.5, 1.5]], "float32"), "label": np.array([[1]])}, fetch_list=[out])


def test_a_predict_of_more_than_two_columns_builds_and_is_refused_when_it_runs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        prob = fluid.data("prob", [None, 3])  # Fluid builds it and checks the width at run time
        label = fluid.data("label", [None, 1], dtype="int64")
        out, _, _ = fluid.layers.auc(prob, label)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    with pytest.raises(PeError, match=r"auc: Predict \[1, 3\] must be \[N, 2\]"):
        exe.run(main, feed={"prob": np.full((1, 3), 0.3, "float32"), "label": np.array([[1]])}, fetch_list=[out])
