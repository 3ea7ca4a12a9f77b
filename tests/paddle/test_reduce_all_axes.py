"""A reduction over ``axis=[]`` folds every axis, as in Paddle 2.6.2 (issue 96; docs/COMPAT.md, "Reductions
saved with dim=[]"): the ops saved with ``dim=[]`` and ``reduce_all`` false (tests/ops/cases_reduction.py
replays Paddle 2.6.2's recorded values of each) and the ``paddle.*`` functions that build them, whose results
are 0-D (or every dim 1 with keepdim) and equal Paddle's recorded ones."""

import numpy as np
import pytest

from pe_cli import fluid, paddle
from tests.ops.paddle26 import RECORDED, array

FUNCTIONS = {
    "reduce_sum": paddle.sum,
    "reduce_mean": paddle.mean,
    "reduce_max": paddle.max,
    "reduce_min": paddle.min,
    "reduce_prod": paddle.prod,
    "reduce_amax": paddle.amax,
    "reduce_amin": paddle.amin,
    "logsumexp": paddle.logsumexp,
}


@pytest.mark.parametrize("op", sorted(FUNCTIONS))
@pytest.mark.parametrize("keepdim", [False, True])
def test_paddle_reductions_over_no_axis_fold_every_axis(paddle2, op, keepdim):
    name = "logsumexp_axis_empty" if op == "logsumexp" else f"{op}_dim_empty" + "_keep" * keepdim
    rec = RECORDED[name]
    x = array(rec["inputs"]["X"][0])
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        out = FUNCTIONS[op](fluid.data("x", list(x.shape), "float64"), axis=[], keepdim=keepdim)
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x}, fetch_list=[out])
    want = array(rec["outputs"]["Out"][0])
    if op == "logsumexp" and keepdim:
        want = want.reshape((1,) * x.ndim)  # (the recorded case has no keepdim)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
