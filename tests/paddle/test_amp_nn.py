"""paddle.static.amp.amp_nn's check_finite_and_unscale and update_loss_scaling build Paddle 2.6's ops, their
results written over their inputs (pe refused both as 'no op yet' while it had the ops)."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.executor.scope import Scope
from pe_cli.paddle.static.amp import amp_nn

S = paddle.static


@pytest.mark.parametrize("bad", [False, True])
def test_a_step_of_loss_scaling_unscales_or_zeroes_and_updates_the_scaling(paddle2, bad):
    g = np.array([[2.0, 4.0], [8.0, np.inf if bad else 6.0]], np.float32)
    main = S.Program()
    with S.program_guard(main, S.Program()):
        x = S.data("g", [2, 2], "float32")
        scale = S.data("scale", [1], "float32")
        good, bad_steps = S.data("good", [1], "int32"), S.data("bad", [1], "int32")
        (out,), found = amp_nn.check_finite_and_unscale([x], scale)
        amp_nn.update_loss_scaling([out], found, scale, good, bad_steps, 2, 1, 2.0, 0.5)
    assert [op.type for op in main.global_block().ops] == ["check_finite_and_unscale", "update_loss_scaling"]
    feed = {"g": g, "scale": np.array([2.0], np.float32), "good": np.array([1], np.int32)}
    feed["bad"] = np.array([0], np.int32)
    with S.scope_guard(Scope()):
        got = S.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=[out, found, scale, good, bad_steps])
    if bad:  # (zeroed, the scaling halved after 1 step with infinities, the counts reset)
        assert got[1].tolist() == [True]
        np.testing.assert_array_equal(got[0], np.zeros_like(g))
        assert got[2].tolist() == [1.0] and got[3].tolist() == [0] and got[4].tolist() == [0]
    else:  # (unscaled, the scaling doubled after 2 finite steps, the count reset)
        assert got[1].tolist() == [False]
        np.testing.assert_array_equal(got[0], g / 2)
        assert got[2].tolist() == [4.0] and got[3].tolist() == [0] and got[4].tolist() == [0]
