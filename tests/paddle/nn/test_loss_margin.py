"""paddle.nn.functional.margin_cross_entropy and class_center_sample (pe_cli/paddle/nn/functional/
loss_margin.py): the loss of Paddle 2.6.2's documented formula under each reduction, the softmax with
return_softmax, a 1-D label; a multi-process group refused in one line. (Paddle 2.6.2's CPU build refuses
margin_cross_entropy, so no recording of it exists; the op's gradient: tests/ops/cases_loss_margin.py.)"""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import PeError

F = paddle.nn.functional
LOGITS = np.random.default_rng(767).uniform(-0.9, 0.9, (3, 4)).astype("float32")
LABEL = np.array([2, 0, 3], "int64")


def _expected(m1=1.0, m2=0.5, m3=0.0, s=64.0):
    z = LOGITS.astype("float64").copy()
    z[np.arange(3), LABEL] = np.cos(m1 * np.arccos(z[np.arange(3), LABEL]) + m2) - m3
    p = np.exp(s * z - (s * z).max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    return -np.log(p[np.arange(3), LABEL]), p


def _run(build):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, y = paddle.static.data("x", [3, 4], "float32"), paddle.static.data("y", [3], "int64")
        outs = build(x, y)
    return paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": LOGITS, "y": LABEL}, fetch_list=list(outs))


def test_reductions_and_the_softmax_follow_the_formula():
    loss, p = _expected(1.2, 0.3, 0.05, 8.0)
    mean, total, rows, softmax = _run(
        lambda x, y: [
            F.margin_cross_entropy(x, y, 1.2, 0.3, 0.05, 8.0),
            F.margin_cross_entropy(x, y, 1.2, 0.3, 0.05, 8.0, reduction="sum"),
            *F.margin_cross_entropy(x, y, 1.2, 0.3, 0.05, 8.0, return_softmax=True, reduction=None),
        ]
    )
    np.testing.assert_allclose(mean, loss.mean(), rtol=1e-5)
    np.testing.assert_allclose(total, loss.sum(), rtol=1e-5)
    np.testing.assert_allclose(rows, loss.reshape(3, 1), rtol=1e-5)
    np.testing.assert_allclose(softmax, p, rtol=1e-5, atol=1e-7)


def test_a_group_of_several_processes_is_refused():
    paddle.enable_static()
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x, y = paddle.static.data("x", [3, 4], "float32"), paddle.static.data("y", [3], "int64")
        with pytest.raises(PeError, match="one process"):
            F.margin_cross_entropy(x, y, group=object())
        with pytest.raises(ValueError, match="num_samples"):
            F.class_center_sample(y, 4, 5)
