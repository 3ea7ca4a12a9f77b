"""What Fluid 1.8 checks only when a program runs, pe builds as Fluid does and refuses when it runs,
with Fluid's fluid.core.EnforceNotMet (the ops' run-time shape and dtype checks: tests/ops/test_fluid_build_checks.py):
reverse of a rank above 6 (test_reverse_op.py); and strided_slice reads ``x[i]`` of a Variable i = -1 as
Fluid's kernel (test_strided_slice_op.py)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.core import EnforceNotMet


def _run(out, feed):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    return exe.run(feed=feed, fetch_list=[out])


def test_a_variable_index_of_minus_1_takes_the_last_element_of_a_strided_slice():
    """Fluid's ``x[i]`` with a Variable i ends at i + 1: for i = -1 that end is 0, which Fluid's
    strided_slice kernel reads as the last element (test_strided_slice_op.py's TestStridedSliceAPI)."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data(name="x", shape=[3, 4, 5], append_batch_size=False, dtype="float64")
        minus_1 = fluid.layers.fill_constant([1], "int32", -1)
        out = x[minus_1, 0:4:2, -1:1:-1]
        value = np.arange(60, dtype="float64").reshape(3, 4, 5)
        (got,) = _run(out, {"x": value})
    np.testing.assert_array_equal(got, value[-1, 0:4:2, -1:1:-1])


def test_reverse_refuses_a_rank_above_6_when_run():
    """Fluid's reverse kernels take ranks up to 6 (test_reverse_op.py's TestCase4 feeds a rank-7 value
    into a layers.data it declared of rank 9, which Fluid does not check)."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        label = fluid.layers.data(name="label", shape=[1] * 6, dtype="int64")
        rev = fluid.layers.reverse(label, axis=[-1, -2])
        assert _run(rev, {"label": np.ones((2, 1, 1, 1, 1, 1, 1), "int64")[..., 0]})[0].shape == (2, 1, 1, 1, 1, 1)
        with pytest.raises(EnforceNotMet, match="ranks up to 6"):
            _run(rev, {"label": np.ones((2, 1, 1, 1, 1, 1, 1), "int64")})
